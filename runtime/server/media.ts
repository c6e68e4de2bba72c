import { badRequest, fieldErrorMessage, fieldNotSupported, notAcceptable } from '../api/index.js';
import {
  type IncludeObject,
  MEDIA_JSON,
  MEDIA_JSON_WATCH,
  MEDIA_PROTOBUF,
  MEDIA_PROTOBUF_WATCH,
  MEDIA_PROTOBUF_K8S,
  MEDIA_PROTOBUF_K8S_WATCH,
  MEDIA_TABLE_JSON,
  MEDIA_YAML,
  type ProtobufCodecs,
  encodeYaml,
  negotiate,
  toTable,
} from '../codec/index.js';
import { builtinPrinters } from './printers/index.js';
import type { ServedResource } from './resources.js';

/** How a response is serialized, chosen from the request's Accept header. */
export type Representation = 'json' | 'yaml' | 'protobuf' | 'table';

export interface Negotiated {
  representation: Representation;
  /** The Content-Type of the response. */
  contentType: string;
  /** The apiVersion a Table is written with, when the client asked for another group's Table. */
  tableApiVersion?: string;
  /** The apiVersion of an aggregated discovery document (`APIGroupDiscoveryList`), when `/api` or `/apis` was asked for one. */
  discoveryApiVersion?: string;
}

/**
 * The Table type as kubectl and client-go ask for it: they read only Tables of `meta.k8s.io`
 * (v1, or v1beta1 after it), so the server answers that name with the same Table.
 */
export const MEDIA_TABLE_JSON_K8S = 'application/json;as=Table;g=meta.k8s.io;v=v1';

const BY_OFFER: Record<string, Negotiated> = {
  [MEDIA_JSON]: { representation: 'json', contentType: 'application/json' },
  [MEDIA_JSON_WATCH]: { representation: 'json', contentType: 'application/json' },
  [MEDIA_YAML]: { representation: 'yaml', contentType: 'application/yaml' },
  [MEDIA_PROTOBUF]: { representation: 'protobuf', contentType: MEDIA_PROTOBUF },
  [MEDIA_PROTOBUF_WATCH]: { representation: 'protobuf', contentType: `${MEDIA_PROTOBUF};stream=watch` },
  [MEDIA_PROTOBUF_K8S]: { representation: 'protobuf', contentType: MEDIA_PROTOBUF_K8S },
  [MEDIA_PROTOBUF_K8S_WATCH]: { representation: 'protobuf', contentType: MEDIA_PROTOBUF_K8S_WATCH },
  [MEDIA_TABLE_JSON]: { representation: 'table', contentType: MEDIA_TABLE_JSON },
  [MEDIA_TABLE_JSON_K8S]: { representation: 'table', contentType: MEDIA_TABLE_JSON_K8S, tableApiVersion: 'meta.k8s.io/v1' },
};

/**
 * Aggregated discovery (`/api`, `/apis`) as client-go 1.30 asks for it first: `APIGroupDiscoveryList`
 * of `apidiscovery.k8s.io` v2 or v2beta1 (the same JSON), answered in the name asked for. The
 * spec's `apidiscovery.svc.io` is accepted too, as the Table's `meta.svc.io` beside `meta.k8s.io`.
 */
const DISCOVERY_OFFERS = ['svc.io', 'k8s.io'].flatMap((suffix) =>
  ['v2', 'v2beta1'].map((version) => {
    const contentType = `application/json;g=apidiscovery.${suffix};v=${version};as=APIGroupDiscoveryList`;
    BY_OFFER[contentType] = { representation: 'json', contentType, discoveryApiVersion: `apidiscovery.${suffix}/${version}` };
    return contentType;
  }),
);

/**
 * `/openapi/v2` in gnostic's Protobuf message, as client-go's OpenAPISchema asks for it: the media
 * type upstream's handler (kube-openapi) answers; it also reads client-go's `openAPIV2mimePb`, the
 * same name with `@v1.0` ({@link MEDIA_OPENAPI_V2_PROTOBUF_AT}).
 */
export const MEDIA_OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
export const MEDIA_OPENAPI_V2_PROTOBUF_AT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
BY_OFFER[MEDIA_OPENAPI_V2_PROTOBUF] = { representation: 'protobuf', contentType: MEDIA_OPENAPI_V2_PROTOBUF };

export const JSON_RESPONSE: Negotiated = BY_OFFER[MEDIA_JSON]!;

export interface Offer {
  /** Protobuf is offered for built-in kinds only (never custom resources). */
  protobuf: boolean;
  /** Table is offered on reads of resources (get, list, watch). */
  table: boolean;
  watch: boolean;
  /** Aggregated discovery is offered on `/api` and `/apis` alone. */
  aggregatedDiscovery?: boolean;
  /** The Protobuf OpenAPI v2 document is offered on `/openapi/v2` alone. */
  openApiV2Protobuf?: boolean;
}

/**
 * The response representation for an Accept list, in the client's order of preference with
 * fallback (Table then JSON, Protobuf then JSON); 406 naming the supported types when none fits.
 */
export function negotiateResponse(accept: string | undefined, offer: Offer): Negotiated {
  const offers = offer.watch
    ? [MEDIA_JSON_WATCH, ...(offer.protobuf ? [MEDIA_PROTOBUF_WATCH] : []), ...(offer.table ? [MEDIA_TABLE_JSON] : [])]
    : [MEDIA_JSON, MEDIA_YAML, ...(offer.protobuf ? [MEDIA_PROTOBUF] : []), ...(offer.table ? [MEDIA_TABLE_JSON] : [])];
  // Not named in a 406: other names of the Table and Protobuf types listed there.
  const aliases = [
    ...(offer.table ? [MEDIA_TABLE_JSON_K8S] : []),
    ...(offer.protobuf ? [offer.watch ? MEDIA_PROTOBUF_K8S_WATCH : MEDIA_PROTOBUF_K8S] : []),
    ...(offer.aggregatedDiscovery ? DISCOVERY_OFFERS : []),
    ...(offer.openApiV2Protobuf ? [MEDIA_OPENAPI_V2_PROTOBUF] : []),
  ];
  // client-go's name of the OpenAPI v2 Protobuf type has `@`, no token character, so the media type
  // parser skips it; upstream's handler (goautoneg) reads it by text. client-go sends it alone.
  if (offer.openApiV2Protobuf && accept?.split(',')[0]?.split(';')[0]?.trim() === MEDIA_OPENAPI_V2_PROTOBUF_AT)
    return BY_OFFER[MEDIA_OPENAPI_V2_PROTOBUF]!;
  const chosen = negotiate(accept, [...offers, ...aliases]);
  if (chosen === undefined) {
    const supported = offers.map((o) => BY_OFFER[o]!.contentType);
    throw notAcceptable([...new Set(supported)]);
  }
  return BY_OFFER[chosen]!;
}

/** Reads `includeObject` (None, Metadata, Object) for Table responses; 400 for anything else. */
export function includeObjectOf(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject') || 'Metadata';
  if (v !== 'None' && v !== 'Metadata' && v !== 'Object') {
    throw badRequest(fieldErrorMessage(fieldNotSupported('includeObject', v, ['None', 'Metadata', 'Object'])));
  }
  return v;
}

export interface RenderContext {
  codecs: ProtobufCodecs | undefined;
  resource: ServedResource | undefined;
  includeObject: IncludeObject;
  pretty: boolean;
  now: () => Date;
}

/** The bytes of a response body in the negotiated representation. */
export function renderBody(body: unknown, n: Negotiated, ctx: RenderContext): string | Uint8Array {
  switch (n.representation) {
    case 'yaml':
      return encodeYaml(body);
    case 'protobuf':
      return ctx.codecs!.encode(body);
    // Each JSON body ends with a newline, as upstream's encoder writes one.
    case 'table':
      return `${JSON.stringify(tableFor(n, asTable(body, ctx)))}\n`;
    case 'json':
      return `${ctx.pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body)}\n`;
  }
}

/** A get or list result as a Table; a Status (an error) stays as it is. */
export function asTable(body: unknown, ctx: Pick<RenderContext, 'resource' | 'includeObject' | 'now'>, noHeaders = false): unknown {
  const b = body as {
    kind?: string;
    items?: unknown[];
    metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  };
  if (!ctx.resource || b.kind === 'Status') return body;
  const { printer, printerColumns } = ctx.resource.descriptor;
  // A kind's named printer computes its cells as upstream's printers.go; otherwise its printer columns.
  const columns = (printer !== undefined ? builtinPrinters[printer] : undefined) ?? printerColumns;
  const base = { includeObject: ctx.includeObject, noHeaders, now: ctx.now };
  if (Array.isArray(b.items) && b.kind === ctx.resource.listKind)
    return toTable(b.items as Record<string, unknown>[], columns, { ...base, ...(b.metadata ? { listMeta: b.metadata } : {}) });
  return toTable([body as Record<string, unknown>], columns, base);
}

/** A Table written with the apiVersion the client negotiated (`meta.k8s.io/v1` for kubectl). */
export function tableFor(n: Negotiated, table: unknown): unknown {
  const t = table as { kind?: unknown } | null;
  return n.tableApiVersion && t?.kind === 'Table' ? { ...t, apiVersion: n.tableApiVersion } : table;
}
