/**
 * URLs as Go's `url.ParseRequestURI` reads them (what the URL library is defined by): an absolute
 * URI or an absolute path, no fragment handling, strict host and port syntax, and Go's rules for
 * the escaped path and the query.
 */

export class UrlParseError extends Error {
  override readonly name = 'UrlParseError';
}

export class Url {
  constructor(
    readonly scheme: string,
    readonly opaque: string,
    /** host[:port], IPv6 literals in brackets. */
    readonly host: string,
    /** The decoded path. */
    readonly path: string,
    /** The path as written, when it is a valid encoding of `path`. */
    readonly rawPath: string,
    readonly rawQuery: string,
  ) {}

  /** The host without port and without IPv6 brackets. */
  hostname(): string {
    const [host] = splitHostPort(this.host);
    return host;
  }

  port(): string {
    return splitHostPort(this.host)[1];
  }

  escapedPath(): string {
    if (this.rawPath !== '' && validEncoded(this.rawPath) && unescapeUrl(this.rawPath, 'path') === this.path) {
      return this.rawPath;
    }
    if (this.path === '*') return '*';
    return escapePath(this.path);
  }

  /** The query as Go's url.ParseQuery reads it: pairs that do not decode are dropped. */
  query(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const part of this.rawQuery.split('&')) {
      if (part === '' || part.includes(';')) continue;
      const eq = part.indexOf('=');
      const rawKey = eq < 0 ? part : part.slice(0, eq);
      const rawValue = eq < 0 ? '' : part.slice(eq + 1);
      let key: string;
      let value: string;
      try {
        key = unescapeUrl(rawKey, 'query');
        value = unescapeUrl(rawValue, 'query');
      } catch {
        continue;
      }
      const list = out.get(key);
      if (list) list.push(value);
      else out.set(key, [value]);
    }
    return out;
  }

  toString(): string {
    const q = this.rawQuery !== '' ? `?${this.rawQuery}` : '';
    if (this.opaque !== '') return `${this.scheme}:${this.opaque}${q}`;
    const scheme = this.scheme !== '' ? `${this.scheme}:` : '';
    const authority = this.scheme !== '' || this.host !== '' ? `//${this.host}` : '';
    return `${scheme}${authority}${this.escapedPath()}${q}`;
  }

  celEquals(other: unknown): boolean {
    return other instanceof Url && other.toString() === this.toString();
  }
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:\d*$/.test(port);
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

const UNRESERVED = /[A-Za-z0-9\-_.~]/;

/** Go's shouldEscape for paths: true when the byte must be percent-encoded. */
function shouldEscapePath(c: string): boolean {
  if (UNRESERVED.test(c)) return false;
  return !'$&+,/:;=@'.includes(c);
}

function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]".includes(c) || c === '%') continue;
    if (shouldEscapePath(c)) return false;
  }
  return true;
}

function escapePath(path: string): string {
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && !shouldEscapePath(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Host characters Go accepts unescaped (sub-delims, unreserved, brackets and colon for IPv6). */
const HOST_CHAR = /[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/;

/** Percent-decoding as Go does it; `query` also turns `+` into a space. */
function unescapeUrl(s: string, mode: 'path' | 'query' | 'host'): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const c = s[i] ?? '';
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new UrlParseError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      bytes.push(Number.parseInt(hex, 16));
      i += 3;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && !HOST_CHAR.test(c)) {
      throw new UrlParseError(`invalid character ${JSON.stringify(c)} in host name`);
    }
    if (mode === 'query' && c === '+') bytes.push(0x20);
    else bytes.push(...Buffer.from(c, 'utf8'));
    i += c.length;
  }
  return Buffer.from(bytes).toString('utf8');
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new UrlParseError("missing ']' in host");
    const port = host.slice(close + 1);
    if (!validOptionalPort(port)) throw new UrlParseError(`invalid port ${JSON.stringify(port)} after host`);
    return host;
  }
  const colon = host.lastIndexOf(':');
  if (colon !== -1) {
    const port = host.slice(colon);
    if (!validOptionalPort(port)) throw new UrlParseError(`invalid port ${JSON.stringify(port)} after host`);
  }
  return unescapeUrl(host, 'host');
}

const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? '';
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlParseError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/** Go's url.ParseRequestURI. */
export function parseRequestUri(raw: string): Url {
  // eslint-disable-next-line no-control-regex -- Go rejects ASCII control characters
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlParseError('invalid control character in URL');
  if (raw === '') throw new UrlParseError('empty url');
  if (raw === '*') return new Url('', '', '', '*', '', '');
  const [schemeText, afterScheme] = getScheme(raw);
  const scheme = schemeText.toLowerCase();
  let rest = afterScheme;
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return new Url(scheme, rest, '', '', '', rawQuery);
    throw new UrlParseError('invalid URI for request');
  }
  let host = '';
  if (scheme !== '' && rest.startsWith('//')) {
    const afterSlashes = rest.slice(2);
    const slash = afterSlashes.indexOf('/');
    const authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash);
    rest = slash < 0 ? '' : afterSlashes.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0 && !USERINFO.test(authority.slice(0, at))) throw new UrlParseError('invalid userinfo');
    host = parseHost(at >= 0 ? authority.slice(at + 1) : authority);
  }
  const path = unescapeUrl(rest, 'path');
  return new Url(scheme, '', host, path, rest, rawQuery);
}
