/**
 * The security profile (`--tags security`), the part that needs code: hostile text everywhere a
 * client can put it, judged on every answer (a status below 500, a Status or an object, Warning
 * headers that are valid field values), and the health probe answered while a large write is being
 * processed. Upstream is the judge (upstream-parity.md#Security in conformance/rules.yaml).
 */
import type { CodeScenarioDefinition } from '../../load.js';
import type { HttpResult, Json, RequestOptions, ScenarioContext } from '../../types.js';

/** Texts no field name, value, query or header should be able to turn into a 5xx or a broken header. */
const TEXTS: [label: string, text: string][] = [
  ['snowman', '☃'],
  ['CJK', '中'],
  ['SOH', '\u0001'],
  ['LF', '\n'],
  ['CR', '\r'],
  ['lone surrogate', '\ud800'],
  ['NEL (a C1 control)', '\u0085'],
  ['10 KB', 'n'.repeat(10 * 1024)],
];
/** Texts a server carries in a Warning as upstream does (valid UTF-8, printable): the warning must be there. */
const PRINTABLE = new Set(['snowman', 'CJK']);

function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Percent-encodes every UTF-8 byte of the text, a lone surrogate as the three bytes a naive encoder
 * writes for it (`\ud800` → `%ED%A0%80`, not UTF-8): what `encodeURIComponent` refuses to produce.
 */
function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c < 0xdc00 && i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    const cp = pair >= 0xdc00 && pair < 0xe000 ? 0x10000 + ((c - 0xd800) << 10) + (pair - 0xdc00) : c;
    if (cp > 0xffff) i++;
    const bytes =
      cp < 0x80
        ? [cp]
        : cp < 0x800
          ? [0xc0 | (cp >> 6), 0x80 | (cp & 63)]
          : cp < 0x10000
            ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
            : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

function warningsOf(res: HttpResult): string[] {
  const w = res.headers.warning;
  return w === undefined ? [] : Array.isArray(w) ? w : [w];
}

/**
 * What is wrong with a Warning header value as received (the client reads header bytes as Latin-1):
 * upstream's NewWarningHeader sends `<code> <agent> "<text>"` with the text valid UTF-8 and free of
 * control characters (C0, DEL, C1), or drops the warning.
 */
export function warningProblem(value: string): string | undefined {
  const bytes = Buffer.from(value, 'latin1');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return `Warning is not UTF-8: ${JSON.stringify(value.slice(0, 120))}`;
  }
  const control = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.exec(text);
  if (control)
    return `Warning carries control character U+${control[0].charCodeAt(0).toString(16).padStart(4, '0')}: ${JSON.stringify(text.slice(0, 120))}`;
  if (!/^\d{3} \S+ "/.test(text)) return `Warning is not <code> <agent> "<text>": ${JSON.stringify(text.slice(0, 120))}`;
  return undefined;
}

/** Sends one request and returns what is wrong with the answer, if anything (a transport error too). */
async function judged(
  ctx: ScenarioContext,
  problems: string[],
  label: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult | undefined> {
  let res: HttpResult;
  try {
    res = await ctx.request(method, path, { ...options, step: label });
  } catch (e) {
    problems.push(`${label}: no valid HTTP answer (${e instanceof Error ? e.message : String(e)})`);
    const health = await healthz(ctx, `healthz after ${label}`);
    if (typeof health === 'string') ctx.fail(`the server stopped answering after ${label} (${health}):\n  ${problems.join('\n  ')}`);
    return undefined;
  }
  if (res.status >= 500) problems.push(`${label}: status ${res.status}: ${res.text.slice(0, 200)}`);
  else if (!isObject(res.json) || typeof res.json.kind !== 'string')
    problems.push(`${label}: status ${res.status} without a Status or object body: ${res.text.slice(0, 120)}`);
  for (const w of warningsOf(res)) {
    const p = warningProblem(w);
    if (p) problems.push(`${label}: ${p}`);
  }
  return res;
}

function expectWarning(problems: string[], label: string, res: HttpResult | undefined, pattern: RegExp): void {
  if (!res || res.status >= 500) return;
  const texts = warningsOf(res).map((w) => Buffer.from(w, 'latin1').toString('utf8'));
  if (!texts.some((t) => pattern.test(t))) problems.push(`${label}: expected a Warning matching ${pattern}, got ${JSON.stringify(texts)}`);
}

async function healthz(ctx: ScenarioContext, label: string): Promise<{ status: number; text: string } | string> {
  try {
    const r = await ctx.request('GET', '/healthz', { step: label });
    return { status: r.status, text: r.text };
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

async function hostileText(ctx: ScenarioContext): Promise<void> {
  const ns = ctx.sub('${ns}');
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const gen = ctx.sub('${n}-');
  const problems: string[] = [];
  const json = { contentType: 'application/json' };
  for (const [label, t] of TEXTS) {
    const tj = JSON.stringify(t);
    const q = percentEncode(t);
    await judged(ctx, problems, `${label}: create named with it`, 'POST', cms, {
      ...json,
      bodyText: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":${tj}}}`,
    });
    await judged(ctx, problems, `${label}: in data, labels and annotations`, 'POST', cms, {
      ...json,
      bodyText: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"${gen}","labels":{${tj}:${tj}},"annotations":{${tj}:${tj}}},"data":{${tj}:${tj}}}`,
    });
    const unknown = await judged(ctx, problems, `${label}: an unknown field, Warn`, 'POST', cms, {
      ...json,
      query: { fieldValidation: 'Warn' },
      bodyText: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"${gen}"},"data":{"k":${tj}},${tj}:1}`,
    });
    const duplicate = await judged(ctx, problems, `${label}: a duplicate unknown field, Warn`, 'POST', cms, {
      ...json,
      query: { fieldValidation: 'Warn' },
      bodyText: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"${gen}"},${tj}:1,${tj}:2}`,
    });
    await judged(ctx, problems, `${label}: a duplicate known field with it as value, Warn`, 'POST', cms, {
      ...json,
      query: { fieldValidation: 'Warn' },
      bodyText: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"${gen}"},"data":{"k":${tj},"k":${tj}}}`,
    });
    if (PRINTABLE.has(label)) {
      expectWarning(problems, `${label}: an unknown field, Warn`, unknown, /unknown field/);
      expectWarning(problems, `${label}: a duplicate unknown field, Warn`, duplicate, /duplicate field/);
    }
    await judged(ctx, problems, `${label}: a SelfSubjectAccessReview`, 'POST', '/apis/authorization.svc.io/v1/selfsubjectaccessreviews', {
      ...json,
      query: { fieldValidation: 'Warn' },
      bodyText: `{"apiVersion":"authorization.svc.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"namespace":${tj},"verb":${tj},"group":${tj},"resource":${tj},"name":${tj}}},${tj}:1}`,
    });
    for (const param of ['labelSelector', 'fieldSelector', 'resourceVersion', 'limit', 'continue', 'fieldManager'])
      await judged(ctx, problems, `${label}: in query ${param}`, 'GET', `${cms}?${param}=${q}`);
    await judged(ctx, problems, `${label}: as a query name`, 'GET', `${cms}?${q}=${q}`);
    await judged(ctx, problems, `${label}: as the name in the path`, 'GET', `${cms}/${q}`);
  }
  // Header values travel as bytes: non-ASCII UTF-8, Latin-1 that is not UTF-8, escapes that are not.
  const utf8 = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');
  const headerCases: [string, Record<string, string>][] = [
    [
      'Impersonate-Extra-%ZZ (a malformed escape in a header name)',
      { 'Impersonate-User': ctx.sub('${user}'), 'Impersonate-Extra-%ZZ': 'x' },
    ],
    [
      'Impersonate-Extra- with a UTF-8 key and value',
      { 'Impersonate-User': ctx.sub('${user}'), 'Impersonate-Extra-%E2%98%83': utf8('☃中') },
    ],
    ['Impersonate-User in Latin-1', { 'Impersonate-User': 'b\u00e9b' }],
    ['Impersonate-User in UTF-8', { 'Impersonate-User': utf8('☃') }],
    ['Impersonate-Group in Latin-1', { 'Impersonate-User': ctx.sub('${user}'), 'Impersonate-Group': '\u00ff' }],
    ['Accept with Latin-1 parameters', { Accept: 'application/json;q=\u00ff' }],
    ['a 4 KB header value', { 'X-Conformance': 'h'.repeat(4096) }],
    ['Authorization that is not UTF-8', { Authorization: 'Bearer \u00ff\u00e9' }],
  ];
  for (const [label, headers] of headerCases) await judged(ctx, problems, `header ${label}`, 'GET', cms, { headers });
  await judged(ctx, problems, 'a malformed escape in a query value', 'GET', `${cms}?labelSelector=%ZZ&limit=%FF`);

  const health = await healthz(ctx, 'healthz afterwards');
  if (typeof health === 'string' || health.status !== 200)
    problems.push(`/healthz afterwards: ${typeof health === 'string' ? health : `status ${health.status} ${health.text.slice(0, 80)}`}`);
  if (problems.length) ctx.fail(`${problems.length} answers were not valid:\n  ${problems.join('\n  ')}`);
}

/**
 * About 1.4 MiB of ConfigMap data in `keys` keys: 80,000 is heavy for decoding and validation; an
 * apply gets 4,000 (field sets of 80,000 keys can take a correct but slow server past the request timeout).
 */
function largeData(keys: number): Record<string, string> {
  const data: Record<string, string> = {};
  const value = 'v'.repeat(Math.floor((1.4 * 1024 * 1024) / keys) - 12);
  for (let i = 0; i < keys; i++) data[`k${String(i).padStart(6, '0')}`] = value;
  return data;
}

/** A probe answered after the write's answer and this late was held behind the write. */
const HELD_MS = 2000;
const PROBE_EVERY_MS = 150;

async function healthDuringWrite(ctx: ScenarioContext): Promise<void> {
  const ns = ctx.sub('${ns}');
  const writes: [label: string, method: string, path: string, options: RequestOptions][] = [
    [
      'create',
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      {
        bodyText: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ctx.sub('${n}-create') },
          data: largeData(80_000),
        }),
      },
    ],
    [
      'server-side apply',
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/${ctx.sub('${n}-apply')}`,
      {
        contentType: 'application/apply-patch+yaml',
        query: { fieldManager: 'conformance' },
        bodyText: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ctx.sub('${n}-apply') },
          data: largeData(4_000),
        }),
      },
    ],
  ];
  for (const [label, method, path, options] of writes) {
    let answeredAt: number | undefined;
    const started = Date.now();
    const write = ctx.request(method, path, { ...options, step: `${label} of ${(options.bodyText?.length ?? 0) >> 10} KiB` }).then(
      (r) => {
        answeredAt = Date.now();
        return r;
      },
      (e: unknown) => {
        answeredAt = Date.now();
        return e instanceof Error ? e.message : String(e);
      },
    );
    const held: string[] = [];
    let probes = 0;
    while (answeredAt === undefined && Date.now() - started < 120_000) {
      const sent = Date.now();
      const r = await healthz(ctx, `healthz during the ${label}`);
      const got = Date.now();
      probes++;
      if (typeof r === 'string' || r.status !== 200) {
        held.push(`probe ${probes}: ${typeof r === 'string' ? r : `status ${r.status}`}`);
        break;
      }
      if (answeredAt !== undefined && answeredAt <= got && got - sent > HELD_MS)
        held.push(
          `probe ${probes} sent ${sent - started} ms into the write took ${got - sent} ms, answered only after the write (at ${answeredAt - started} ms)`,
        );
      await ctx.sleep(PROBE_EVERY_MS);
    }
    const res = await write;
    if (typeof res === 'string') ctx.fail(`the ${label}: no answer (${res})`);
    ctx.check(res, { status: [200, 201, 400, 413, 422] }, `the ${label}`);
    if (held.length) ctx.fail(`/healthz was not answered while the ${label} was processed:\n  ${held.join('\n  ')}`);
  }
}

export const scenarios: CodeScenarioDefinition[] = [
  {
    id: 'core/security/hostile-text-answered',
    rule: [
      'upstream-parity.md#Security: hostile text',
      'upstream-parity.md#Security: warning header values',
      'core-protocol.md#Field validation: 3',
    ],
    description:
      'Field names and values with ☃, 中, U+0001, LF, CR, an unpaired surrogate escape, a C1 control and a 10 KB name; unknown and duplicate fields built from them under fieldValidation=Warn; a SelfSubjectAccessReview carrying them; the same text percent-encoded in query values and names and in the name segment; non-ASCII, non-UTF-8 and malformed escapes in header names and values (`Impersonate-Extra-%ZZ`, which upstream keeps as the extra key `%zz`): every answer is below 500 with a Status or an object, every Warning is valid UTF-8 without control characters (the warnings of ☃ and 中 are there), and /healthz answers afterwards.',
    tags: ['security'],
    exercises: { verbs: ['create'], formats: ['json'], versions: ['v1', 'authorization.svc.io/v1'] },
    run: hostileText,
  },
  {
    id: 'core/security/health-answered-during-large-write',
    rule: 'upstream-parity.md#Security: health during writes',
    description: `A ConfigMap of about 1.4 MiB is created (in 80,000 keys), then server-side applied (in 4,000 keys); while each write is in flight /healthz is asked every ${PROBE_EVERY_MS} ms and each probe must be answered before the write's answer or within ${HELD_MS} ms. The writes may be refused (upstream: 422, data over 1 MiB) but not with a 5xx.`,
    tags: ['security', 'serial'],
    needs: ['apply'],
    exercises: { verbs: ['create', 'apply'], formats: ['json'], versions: ['v1'] },
    run: healthDuringWrite,
  },
];
