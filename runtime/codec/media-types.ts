/** The media types of the service (spec: "Headers and media types"). */
export const MEDIA_JSON = 'application/json';
export const MEDIA_YAML = 'application/yaml';
export const MEDIA_PROTOBUF = 'application/vnd.svc.protobuf';
/** The Table representation (GET, and watch of Tables). */
export const MEDIA_TABLE_JSON = 'application/json;as=Table;g=meta.svc.io;v=v1';
/** Watch responses: one JSON document per event, or length-delimited Protobuf frames. */
export const MEDIA_JSON_WATCH = 'application/json;stream=watch';
export const MEDIA_PROTOBUF_WATCH = 'application/vnd.svc.protobuf;stream=watch';
/**
 * The real system's name of the Protobuf type, which client-go and kubectl send: accepted as
 * another name of the same encoding (and answered in the name asked for), as the Table's `meta.k8s.io`.
 */
export const MEDIA_PROTOBUF_K8S = 'application/vnd.kubernetes.protobuf';
export const MEDIA_PROTOBUF_K8S_WATCH = 'application/vnd.kubernetes.protobuf;stream=watch';

/** A parsed media type: lower-cased type and subtype, parameters with lower-cased names. */
export interface MediaType {
  type: string;
  subtype: string;
  params: Record<string, string>;
}

/**
 * Parses `type/subtype;name=value;...` (quoted values allowed). Returns undefined for text that is
 * not a media type.
 */
export function parseMediaType(text: string): MediaType | undefined {
  const parts = splitOutsideQuotes(text, ';');
  const [type, subtype, extra] = (parts[0] ?? '').trim().toLowerCase().split('/');
  if (!type || !subtype || extra !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  const params: Record<string, string> = {};
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    if (p.trim() === '') continue;
    if (eq < 0) return undefined;
    const name = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (!TOKEN.test(name)) return undefined;
    params[name] = value;
  }
  return { type, subtype, params };
}

/** `type/subtype;a=1;b=2` with parameters in the given order. */
export function formatMediaType(media: MediaType): string {
  return [`${media.type}/${media.subtype}`, ...Object.entries(media.params).map(([k, v]) => `${k}=${v}`)].join(';');
}

/** True for the Table representation (`as=Table`), whatever the serialization. */
export function isTableMediaType(media: MediaType | string): boolean {
  const m = typeof media === 'string' ? parseMediaType(media) : media;
  return m?.params.as === 'Table';
}

/** The content type of a body without parameters, lower-cased (`application/json`). */
export function essence(media: MediaType | string): string | undefined {
  const m = typeof media === 'string' ? parseMediaType(media) : media;
  return m ? `${m.type}/${m.subtype}` : undefined;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i;

/** Splits at `separator` except inside double quotes. */
export function splitOutsideQuotes(text: string, separator: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    if (c === '\\' && quoted && i + 1 < text.length) {
      current += c + text[++i];
      continue;
    }
    if (c === separator && !quoted) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}
