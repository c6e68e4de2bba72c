/**
 * An object as served, made from its stored JSON text without parsing it: the stored form
 * (`storedForm`: `{"apiVersion":..,"kind":..,"metadata":{..},..}`, metadata without a
 * resourceVersion) with `"resourceVersion":"<modRevision>"` put first in its metadata: the very
 * text `JSON.stringify` gives of the object `decodeObject` reads from it (which puts it first
 * too). Gets and lists of stored objects are served from these texts, as kube-apiserver's watch
 * cache serves its cached serialisations; only the type meta before the metadata is read.
 *
 * Undefined when the text is not in that layout, names another version than `apiVersion`
 * (conversion needs the object), or holds a `"resourceVersion"` key anywhere (one in the stored
 * metadata would be printed twice; telling it from one in the data would take a full scan): the
 * caller decodes it then.
 */
export function servedTextOf(stored: string, modRevision: number, apiVersion: string): string | undefined {
  const open = metadataStart(stored, apiVersion);
  if (open === undefined || stored.includes('"resourceVersion"')) return undefined;
  const member = `"resourceVersion":"${modRevision}"`;
  const separator = stored.charCodeAt(open + 1) === CLOSE_BRACE ? '' : ',';
  return `${stored.slice(0, open + 1)}${member}${separator}${stored.slice(open + 1)}`;
}

/**
 * Where the top-level metadata object's opening brace is, when the text starts with string
 * members `apiVersion` (equal to `apiVersion`) and optionally `kind`, then `metadata`.
 */
function metadataStart(text: string, apiVersion: string): number | undefined {
  if (text.charCodeAt(0) !== OPEN_BRACE) return undefined;
  let i = 1;
  let sawApiVersion = false;
  for (;;) {
    const keyEnd = stringEnd(text, i);
    if (keyEnd === undefined || text.charCodeAt(keyEnd) !== COLON) return undefined;
    const name = text.slice(i + 1, keyEnd - 1);
    i = keyEnd + 1;
    if (name === 'metadata') return sawApiVersion && text.charCodeAt(i) === OPEN_BRACE ? i : undefined;
    if (name !== 'apiVersion' && name !== 'kind') return undefined;
    const valueEnd = stringEnd(text, i);
    if (valueEnd === undefined) return undefined;
    if (name === 'apiVersion') {
      // Plain version strings only: an escaped one is left to the decoder.
      if (text.slice(i + 1, valueEnd - 1) !== apiVersion) return undefined;
      sawApiVersion = true;
    }
    i = valueEnd;
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

/** The index after the closing quote of the JSON string starting at `at` (a quote after an odd run of backslashes is escaped). */
function stringEnd(text: string, at: number): number | undefined {
  if (text.charCodeAt(at) !== QUOTE) return undefined;
  for (let from = at + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return undefined;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}
