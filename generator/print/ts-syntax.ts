/** Small helpers for writing TypeScript source text. */

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A string literal: single-quoted, or double-quoted when that needs fewer escapes (as prettier). */
export function tsString(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replaceAll(quote, `\\${quote}`);
  return `${quote}${body}${quote}`;
}

/** A property key: bare when it is an identifier, quoted otherwise. */
export function tsKey(name: string): string {
  return IDENTIFIER.test(name) ? name : tsString(name);
}

/** A literal type for a JSON value (string, number, boolean or null); undefined for others. */
export function tsLiteral(value: unknown): string | undefined {
  if (typeof value === 'string') return tsString(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean' || value === null) return String(value);
  return undefined;
}

/** `fooBar-baz.qux` -> `FooBarBazQux`: a PascalCase identifier part. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

/**
 * `flowcontrol.apiserver.svc.io` v1beta3 -> `flowcontrolApiserverV1beta3`, `HTTPRoute` -> `httpRoute`:
 * a camelCase identifier that lowers a leading initialism as people write it (`tcpRoute`,
 * `csiDriver`), keeping the capital that starts the next word.
 */
export function camelCase(text: string): string {
  const p = pascalCase(text);
  const run = /^[A-Z0-9]+/.exec(p)?.[0].length ?? 0;
  if (run === 0) return p;
  // In `HTTPRoute` the run `HTTPR` ends with the next word's capital; in `HTTP`, `URLs` or `Pod` it does not.
  const cut = run > 1 && /^[a-z]{2}/.test(p.slice(run)) ? run - 1 : run;
  return p.slice(0, cut).toLowerCase() + p.slice(cut);
}

/** A JSON value as a TypeScript literal: single-quoted strings, bare keys where possible. */
export function tsValue(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return tsString(value);
  if (Array.isArray(value)) return `[${value.map(tsValue).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, v]) => `${tsKey(k)}: ${tsValue(v)}`).join(', ')} }`;
  }
  throw new Error(`not a JSON value: ${typeof value}`);
}
