/**
 * An object as served, made from its stored JSON text without parsing it: the stored form
 * (`storedForm`: `{"apiVersion":..,"kind":..,"metadata":{..},..}`, metadata without a
 * resourceVersion) with `"resourceVersion":"<modRevision>"` appended to its metadata: the very
 * text `JSON.stringify` gives of the object `decodeObject` reads from it. A list of stored objects
 * is served from these texts as kube-apiserver's watch cache serves its cached serialisations.
 *
 * Undefined when the text is not in that layout, or names another version than `apiVersion`
 * (conversion needs the object): the caller decodes it then.
 */
export function servedTextOf(stored: string, modRevision: number, apiVersion: string): string | undefined {
  const metadata = metadataBounds(stored, apiVersion);
  if (!metadata) return undefined;
  const [open, close] = metadata;
  // A resourceVersion kept in the stored text (not written by storedForm) would be a duplicate.
  const kept = stored.indexOf('"resourceVersion"', open);
  if (kept !== -1 && kept < close) return undefined;
  const member = `"resourceVersion":"${modRevision}"`;
  return `${stored.slice(0, close)}${close === open + 1 ? '' : ','}${member}${stored.slice(close)}`;
}

/**
 * Where the top-level metadata object's braces are, when the text starts with string members
 * `apiVersion` (equal to `apiVersion`) and optionally `kind`, then `metadata`.
 */
function metadataBounds(text: string, apiVersion: string): [open: number, close: number] | undefined {
  if (text.charCodeAt(0) !== OPEN_BRACE) return undefined;
  let i = 1;
  let sawApiVersion = false;
  for (;;) {
    const key = stringAt(text, i);
    if (!key || text.charCodeAt(key.end) !== COLON) return undefined;
    const name = text.slice(key.start + 1, key.end - 1);
    i = key.end + 1;
    if (name === 'metadata') {
      if (!sawApiVersion || text.charCodeAt(i) !== OPEN_BRACE) return undefined;
      const close = objectEnd(text, i);
      return close === undefined ? undefined : [i, close];
    }
    if (name !== 'apiVersion' && name !== 'kind') return undefined;
    const value = stringAt(text, i);
    if (!value) return undefined;
    if (name === 'apiVersion') {
      // Plain version strings only: an escaped one is left to the decoder.
      if (text.slice(value.start + 1, value.end - 1) !== apiVersion) return undefined;
      sawApiVersion = true;
    }
    i = value.end;
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i++;
  }
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

/** The JSON string starting at `at`: its opening quote and the index after its closing one. */
function stringAt(text: string, at: number): { start: number; end: number } | undefined {
  if (text.charCodeAt(at) !== QUOTE) return undefined;
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return { start: at, end: i + 1 };
  }
  return undefined;
}

/** The index of the brace that closes the object opening at `at` (strings skipped). */
function objectEnd(text: string, at: number): number | undefined {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const s = stringAt(text, i);
      if (!s) return undefined;
      i = s.end - 1;
    } else if (c === OPEN_BRACE || c === 0x5b) depth++;
    else if (c === CLOSE_BRACE || c === 0x5d) {
      depth--;
      if (depth === 0) return c === CLOSE_BRACE ? i : undefined;
    }
  }
  return undefined;
}
