import type { ProtobufCodecs } from '../codec/index.js';
import type { Store } from '../store/index.js';
import type { RuleChecker } from './admission.js';
import type { Request, Warnings } from './http.js';
import type { Negotiated } from './media.js';
import type { NamespaceReaper } from './namespace-reaper.js';
import type { ServedResource, ResourceRegistry } from './resources.js';

/** Settings every handler reads; built once per server with every option defaulted. */
export interface ServerSettings {
  /** Continue-token lifetime. */
  continueTtlMs: number;
  /** Secret that signs continue tokens. */
  continueSecret: Uint8Array;
  /** How long a read at a not-yet-reached resourceVersion waits before answering 504. */
  futureRevisionWaitMs: number;
  /** Largest accepted request body. */
  maxBodyBytes: number;
  /** Interval of BOOKMARK events on watches that asked for them. */
  bookmarkIntervalMs: number;
  /** Upper bound of a watch without timeoutSeconds (the real system's default is 30 to 60 minutes). */
  maxWatchSeconds: number;
  now: () => Date;
}

/** The server-wide parts a handler works with. */
export interface ServerContext {
  store: Store;
  /** Protobuf codecs of the built-in kinds; undefined when the server offers no Protobuf. */
  codecs: ProtobufCodecs | undefined;
  /** Response compression (`APIResponseCompression`); on by default. */
  compression: boolean;
  registry: ResourceRegistry;
  settings: ServerSettings;
  rules: RuleChecker;
  reaper: NamespaceReaper;
}

/** What one resource request addresses. */
export interface Target {
  r: ServedResource;
  /** The namespace in the path (undefined for cluster-scoped and all-namespaces requests). */
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

/** How this request's response is written: the negotiated representation, and for what resource. */
export interface ResponsePlan {
  negotiated: Negotiated;
  r: ServedResource | undefined;
  /** get and list responses may be gzip-compressed. */
  compressible: boolean;
}

/** One request in flight: the server context plus the request, its warnings and its response plan. */
export interface RequestContext extends ServerContext {
  req: Request;
  warnings: Warnings;
  response: ResponsePlan;
}
