import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { MEDIA_PROTOBUF } from '../../runtime/codec/index.js';
import { startReferenceServer } from '../../reference/index.js';
import { runCases } from './harness.js';
import { podList } from './protobuf.js';

/** get and list of 500 Pods over HTTP in each media type, JSON being the peer of each. */
export async function benchMedia(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svckit-bench-media-'));
  const server = await startReferenceServer({ store: `sqlite:${join(dir, 'db')}` });
  const agent = new Agent({ connections: 8 });
  try {
    await send(agent, `${server.url}/api/v1/namespaces`, { metadata: { name: 'bench' } });
    // The Pods run as the ServiceAccount `web`: the ServiceAccount admission plugin wants it there.
    await send(agent, `${server.url}/api/v1/namespaces/bench/serviceaccounts`, { metadata: { name: 'web' } });
    const pods = podList(500).items as { metadata: Record<string, unknown> }[];
    for (const pod of pods) {
      // No owner: the Pods' ReplicaSet does not exist here, and the garbage collector would delete
      // them mid-run (the list cases then measured a shrinking collection).
      const {
        resourceVersion: _rv,
        uid: _uid,
        creationTimestamp: _ct,
        managedFields: _mf,
        ownerReferences: _owners,
        ...meta
      } = pod.metadata;
      await send(agent, `${server.url}/api/v1/namespaces/bench/pods`, {
        ...pod,
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { ...meta, namespace: 'bench' },
        status: undefined,
      });
    }
    const list = `${server.url}/api/v1/namespaces/bench/pods`;
    const count = async () => ((await (await request(list, { dispatcher: agent })).body.json()) as { items: unknown[] }).items.length;
    if ((await count()) !== pods.length) throw new Error(`expected ${pods.length} Pods before the run`);
    const one = `${list}/${String(pods[0]!.metadata.name)}`;
    const fetchAs = (url: string, headers: Record<string, string>, times: number) => async () => {
      let bytes = 0;
      for (let i = 0; i < times; i++) {
        const res = await request(url, { dispatcher: agent, headers });
        bytes += (await res.body.arrayBuffer()).byteLength;
        if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
      }
      return bytes > 0 ? undefined : 0;
    };
    const json = { accept: 'application/json' };
    await runCases('get and list of 500 Pods over HTTP, per media type (peer: JSON)', [
      {
        name: 'list 500 Pods x10, Protobuf',
        ours: fetchAs(list, { accept: MEDIA_PROTOBUF }, 10),
        peer: { name: 'JSON', run: fetchAs(list, json, 10) },
      },
      {
        name: 'list 500 Pods x10, gzip JSON',
        ours: fetchAs(list, { accept: 'application/json', 'accept-encoding': 'gzip' }, 10),
        peer: { name: 'JSON', run: fetchAs(list, json, 10) },
      },
      {
        name: 'list 500 Pods x10, Table',
        ours: fetchAs(list, { accept: 'application/json;as=Table;g=meta.svc.io;v=v1' }, 10),
        peer: { name: 'JSON', run: fetchAs(list, json, 10) },
      },
      {
        name: 'get a Pod x500, Protobuf',
        ours: fetchAs(one, { accept: MEDIA_PROTOBUF }, 500),
        peer: { name: 'JSON', run: fetchAs(one, json, 500) },
      },
    ]);
    const left = await count();
    if (left !== pods.length) throw new Error(`${pods.length - left} of ${pods.length} Pods went during the run`);
  } finally {
    await agent.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function send(agent: Agent, url: string, body: unknown): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${text.slice(0, 300)}`);
}
