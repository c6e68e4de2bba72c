/**
 * Faults of the security profile (conformance/scenarios/security/): each makes a correct server
 * behave as the audited one did on one kind of path, so that the scenario checking that property
 * has to notice.
 */
import { isObject } from '../json.js';
import { sentObject, statusOf, withJson } from './edits.js';
import type { Mutation, ProxiedRequest } from './types.js';

const WRITES = ['POST', 'PUT', 'PATCH'] as const;

/** `.`, `..` and their percent-encodings as a whole path segment. */
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|$)/i;

/** The path a client that resolves dot segments (after decoding `%2E`) would send. */
export function resolveDotSegments(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    const plain = segment.replace(/%2e/gi, '.');
    if (plain === '.') continue;
    if (plain === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

/** Sends the request as the kit's own identity (an administrator): drops every Impersonate-* header. */
function asTheKit(request: ProxiedRequest): boolean {
  const had = request.headers['impersonate-user'] !== undefined;
  for (const h of Object.keys(request.headers)) if (h.startsWith('impersonate-')) delete request.headers[h];
  return had;
}

/** A body of more than this is a large write, during which the faulty server answers nothing else. */
const LARGE_BODY = 1 << 20;
const LARGE_WRITE_MS = 5000;

function isLargeWrite(request: ProxiedRequest): boolean {
  return request.method !== 'GET' && request.body.length > LARGE_BODY;
}

/**
 * A server that processes a large write on its only thread: the write takes 5 s and the health
 * probes that arrive meanwhile are answered after it. State lives per mutation object; the check
 * runs each mutation once, behind its own proxy.
 */
function healthHeldDuringLargeWrites(): Mutation {
  let writing = 0;
  let released: Promise<void> = Promise.resolve();
  let release: () => void = () => undefined;
  return {
    id: 'healthz-held-during-large-write',
    description: 'spends 5 s on a write of more than 1 MiB and answers /healthz only after it',
    rule: 'upstream-parity.md#Security: health during writes',
    caughtBy: ['core/security/health-answered-during-large-write'],
    match: { method: ['GET', ...WRITES], path: /^\/healthz$|\/configmaps(\/|$)/, watch: false },
    request: (req) => {
      if (isLargeWrite(req) && writing++ === 0) released = new Promise((resolve) => (release = resolve));
      return false;
    },
    response: async (r, ctx) => {
      if (isLargeWrite(ctx.request)) {
        await new Promise((resolve) => setTimeout(resolve, LARGE_WRITE_MS));
        if (--writing === 0) release();
        return r;
      }
      if (ctx.request.path !== '/healthz' || writing === 0) return undefined;
      await released;
      return r;
    },
  };
}

/** The Go-quoted or JSON-escaped field name of an `unknown field "…"` / `duplicate field "…"` text, unescaped. */
function unescapeQuoted(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|["\\nrt])/g, (_, e: string) => {
    if (e === 'n') return '\n';
    if (e === 'r') return '\r';
    if (e === 't') return '\t';
    if (e.length === 1) return e;
    return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
  });
}

export const SECURITY_MUTATIONS: readonly Mutation[] = [
  {
    id: 'dot-segments-resolved',
    description: 'resolves `.` and `..` (and %2E) segments before serving: configmaps/. is the collection, configmaps/.. the namespace',
    rule: 'upstream-parity.md#Security: dot-segment names',
    caughtBy: ['core/security/dot-segment-names-refused'],
    match: { path: DOT_SEGMENT },
    request: (req) => {
      const resolved = resolveDotSegments(req.path);
      if (resolved === req.path) return false;
      req.path = resolved;
      return true;
    },
  },
  {
    id: 'encoded-resource-served-with-kit-authority',
    description: 'authorizes a percent-encoded path as something else than it serves: the restricted user gets the kit’s authority',
    rule: 'upstream-parity.md#Security: encoded resource',
    caughtBy: ['core/security/encoded-resource-authorized-as-served'],
    match: { path: /%/, headers: { 'impersonate-user': /./ } },
    request: asTheKit,
  },
  {
    id: 'warning-text-raw',
    description:
      'writes the field name of an unknown- or duplicate-field Warning unescaped, one byte per UTF-16 unit (☃ becomes the control byte 0x03, U+0001 stays 0x01)',
    rule: 'upstream-parity.md#Security: warning header values',
    caughtBy: ['core/security/hostile-text-answered'],
    match: { method: WRITES },
    response: (r) => {
      const warnings = r.headers.warning ?? [];
      let changed = false;
      const raw = warnings.map((w) => {
        // The client reads header bytes as Latin-1; the text is UTF-8.
        const text = Buffer.from(w, 'latin1').toString('utf8');
        const m = /^(\d{3} \S+ ")(.*(?:unknown|duplicate) field \\")(.*)(\\"")$/.exec(text);
        if (!m) return w;
        // Two levels: the Warning's own quoting, then the message's quoting of the field name.
        const name = unescapeQuoted((m[3] ?? '').replace(/\\(["\\])/g, '$1'));
        if (!/[^\x20-\x7e]/.test(name)) return w;
        changed = true;
        const units = Array.from({ length: name.length }, (_, i) => String.fromCharCode(name.charCodeAt(i) & 0xff)).join('');
        return `${m[1]}${m[2]}${units}${m[4]}`;
      });
      return changed ? { ...r, headers: { ...r.headers, warning: raw } } : undefined;
    },
  },
  healthHeldDuringLargeWrites(),
  {
    id: 'secret-data-echoed-in-errors',
    description: 'names the refused value of a Secret’s data in the error message',
    rule: 'upstream-parity.md#Security: secret data in errors',
    caughtBy: ['core/security/invalid-secret-data-not-echoed'],
    match: { method: WRITES, path: /\/secrets(\/|$)/ },
    response: (r, ctx) => {
      const status = statusOf(r);
      const data = sentObject(ctx.request)?.data;
      if (!status || r.status < 400 || r.status >= 500 || !isObject(data)) return undefined;
      const values = Object.entries(data).filter((e): e is [string, string] => typeof e[1] === 'string');
      if (values.length === 0) return undefined;
      const named = values.map(([k, v]) => `data[${k}]: Invalid value: ${JSON.stringify(v)}`).join(', ');
      return withJson(r, { ...status, message: `${String(status.message ?? '')}: ${named}` });
    },
  },
];
