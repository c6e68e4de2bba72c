/** Small helpers for writing TypeScript source text. */

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A single-quoted string literal. */
export function tsString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
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

/** `flowcontrol.apiserver.svc.io` v1beta3 -> `flowcontrolApiserverV1beta3`: a namespace name. */
export function camelCase(text: string): string {
  const p = pascalCase(text);
  return p.length === 0 ? p : p[0]!.toLowerCase() + p.slice(1);
}
