/**
 * Chunked lists walked to the end by a program: every page within the limit, every object exactly
 * once, remainingItemCount consistent with what followed, one resourceVersion throughout, even while
 * other writers change the collection.
 */
import type { CodeScenarioDefinition } from '../../load.js';
import type { ScenarioContext } from '../../types.js';
import { isObject } from '../../json.js';

interface Page {
  names: string[];
  continueToken: string;
  remaining: number | undefined;
  resourceVersion: string;
}

async function page(ctx: ScenarioContext, limit: number, token: string, label: string): Promise<Page> {
  const res = await ctx.request('GET', ctx.collection(), { query: { limit, ...(token ? { continue: token } : {}) }, step: label });
  ctx.check(res, { status: [200] }, label);
  const body = isObject(res.json) ? res.json : {};
  const meta = isObject(body.metadata) ? body.metadata : {};
  const items = Array.isArray(body.items) ? body.items : [];
  if (items.length > limit) ctx.fail(`${label}: ${items.length} items for limit=${limit}`);
  return {
    names: items.map((i) => (isObject(i) && isObject(i.metadata) && typeof i.metadata.name === 'string' ? i.metadata.name : '?')),
    continueToken: typeof meta.continue === 'string' ? meta.continue : '',
    remaining: typeof meta.remainingItemCount === 'number' ? meta.remainingItemCount : undefined,
    resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '',
  };
}

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'core/list/chunked-walk-complete',
    rule: [
      'core-protocol.md#Chunked list procedure: 2',
      'core-protocol.md#Chunked list procedure: 3',
      'core-protocol.md#Collection response: metadata.remainingItemCount',
    ],
    description:
      'Walking 13 objects with limit=4 while another writer adds and deletes objects: every original object appears exactly once, no page exceeds the limit, each remainingItemCount equals the items that followed, the resourceVersion never changes.',
    resource: ['secrets', 'crontabs'],
    async run(ctx) {
      const n = ctx.sub('${n}');
      const originals = Array.from({ length: 13 }, (_, i) => `${n}-${String(i).padStart(2, '0')}`);
      for (const name of originals) {
        const res = await ctx.request('POST', ctx.collection(), { body: ctx.sample(name), step: `create ${name}` });
        ctx.check(res, { status: [200, 201] }, `create ${name}`);
      }
      const pages: Page[] = [];
      let token = '';
      do {
        pages.push(await page(ctx, 4, token, `page ${pages.length + 1}`));
        token = pages[pages.length - 1]?.continueToken ?? '';
        // A concurrent writer: one new object and one deleted original per page.
        const extra = await ctx.request('POST', ctx.collection(), {
          body: ctx.sample(`${n}-new${pages.length}`),
          step: 'concurrent create',
        });
        ctx.check(extra, { status: [200, 201] }, 'concurrent create');
        const gone = originals[pages.length - 1] ?? '';
        const del = await ctx.request('DELETE', `${ctx.collection()}/${gone}`, { step: 'concurrent delete' });
        ctx.check(del, { status: [200, 202] }, 'concurrent delete');
        if (pages.length > 10) ctx.fail('more than 10 pages for 13 objects with limit=4');
      } while (token);
      const all = pages.flatMap((p) => p.names);
      const dup = all.find((name, i) => all.indexOf(name) !== i);
      if (dup) ctx.fail(`${dup} appears on two pages`);
      if ([...all].sort().join() !== [...originals].sort().join())
        ctx.fail(`pages hold ${all.join(', ')}; expected exactly the 13 objects of the first page's snapshot`);
      const rv = pages[0]?.resourceVersion;
      pages.forEach((p, i) => {
        if (p.resourceVersion !== rv) ctx.fail(`page ${i + 1} has resourceVersion ${p.resourceVersion}, page 1 had ${rv ?? ''}`);
        const after = pages.slice(i + 1).reduce((sum, q) => sum + q.names.length, 0);
        if (i < pages.length - 1 && p.remaining !== after)
          ctx.fail(`page ${i + 1}: remainingItemCount ${String(p.remaining)}, but ${after} items followed`);
        if (i === pages.length - 1 && p.remaining !== undefined) ctx.fail(`last page: remainingItemCount ${p.remaining} should be omitted`);
      });
    },
  },
];
