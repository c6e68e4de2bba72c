import { type Agent, request } from 'undici';

/** Runs `task` `total` times, `width` at a time: the load shape of the server benchmarks. */
export async function inParallel(total: number, width: number, task: () => Promise<unknown>): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      await task();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}

/** A GET that must answer 200; the body is read (and dropped) so the connection is reused. */
export async function get(agent: Agent, base: string, path: string): Promise<void> {
  const res = await request(base + path, { dispatcher: agent });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
}

/** A JSON POST that must succeed (2xx); resolves to the response's text (the object as created). */
export async function post(agent: Agent, base: string, path: string, body: unknown): Promise<string> {
  const res = await request(base + path, {
    method: 'POST',
    dispatcher: agent,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  return text;
}

/** Reads the collection at `path` in pages of 500 to its end; resolves to the number of items. */
export async function pagedList(agent: Agent, base: string, path: string): Promise<number> {
  let token = '';
  let items = 0;
  do {
    const res = await request(`${base}${path}?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`, { dispatcher: agent });
    const list = (await res.body.json()) as { metadata: { continue?: string }; items: unknown[] };
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`);
    items += list.items.length;
    token = list.metadata.continue ?? '';
  } while (token);
  return items;
}
