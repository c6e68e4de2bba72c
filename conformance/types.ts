/**
 * The scenario model: what `load.ts` produces from YAML suites and TypeScript scenario modules, and
 * what the runner executes. Plain data except `CodeScenario.run`.
 */

/** Tags select how a scenario is scheduled or whether a run includes it. */
export const TAGS = ['slow', 'serial', 'needs-history-expiry', 'destructive', 'security', 'clients'] as const;
export type Tag = (typeof TAGS)[number];

/**
 * Optional server features. A scenario that needs one is skipped when the run declares the server
 * does not offer it (`--without`), so a partial server is judged on what it claims to serve.
 */
export const FEATURES = [
  'watch-bookmarks',
  'send-initial-events',
  'protobuf',
  'table',
  'apply',
  'strategic-merge',
  'json-patch',
  'merge-patch',
  'gzip',
  'metrics',
  'webhooks',
  'authz',
] as const;
export type Feature = (typeof FEATURES)[number];

/** The write paths a rule can apply to (conformance/coverage.ts). */
export const WRITE_VERBS = ['create', 'update', 'merge-patch', 'json-patch', 'strategic-merge-patch', 'apply'] as const;
export type WriteVerb = (typeof WRITE_VERBS)[number];
export const BODY_FORMATS = ['json', 'yaml', 'protobuf'] as const;
export type BodyFormat = (typeof BODY_FORMATS)[number];
export const BOUNDARIES = ['zero', 'empty', 'null', 'absent'] as const;
export type Boundary = (typeof BOUNDARIES)[number];

/** What scenarios exercise on the write path; a code scenario declares it, a YAML one is read. */
export interface Exercises {
  verbs: WriteVerb[];
  formats: BodyFormat[];
  /** `v1`, `<group>/<version>` of the write requests. */
  versions: string[];
  boundaries: Boundary[];
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A resource type a scenario can be parameterised over (`conformance/resources.yaml`). */
export interface ResourceProfile {
  /** Key used in a scenario's `resource:` list, usually the plural (`configmaps`). */
  name: string;
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** A valid object of the kind without apiVersion, kind and metadata; the `$sample` body helper. */
  sample: JsonObject;
  /** Whether the type is a custom resource (no Protobuf, no strategic merge patch). */
  custom: boolean;
}

export type HeaderExpectation =
  | 'present'
  | 'absent'
  | { present?: boolean; absent?: boolean; equals?: string; matches?: string; count?: number; optional?: boolean };

/** One JSONPath-like check on the response body (or on a watch's recorded result). */
export interface PathCheck {
  path: string;
  equals?: Json;
  notEquals?: Json;
  matches?: string;
  exists?: boolean;
  absent?: boolean;
  /** Absent, null, "", [] or {}: how the real system serializes an empty optional field. */
  empty?: boolean;
  length?: number;
  minLength?: number;
  /** Every selected value equals (partially matches) this; vacuously true for none. */
  every?: Json;
  /** The selected list holds an element that partially matches this. */
  contains?: Json;
  /** The selected list holds no element that partially matches this. */
  notContains?: Json;
  gte?: number;
  lte?: number;
  /** JSON type of the (single) selected value: string, number, boolean, object, array, null. */
  type?: string;
}

/** Expectations on a Status error body (`kind: Status`). */
export interface ErrorExpectation {
  reason?: string;
  code?: number;
  message?: string;
  notMessage?: string;
  /** Each listed cause must partially match some cause of `details.causes`. */
  causes?: JsonObject[];
  details?: JsonObject;
}

export interface ProtobufExpectation {
  apiVersion?: string;
  kind?: string;
  contentType?: string;
}

export interface ResponseExpectation {
  status?: number[];
  headers?: Record<string, HeaderExpectation>;
  body?: Json;
  at?: PathCheck[];
  error?: ErrorExpectation;
  text?: { matches?: string; notMatches?: string };
  /** The body is a Protobuf envelope (magic prefix, `Unknown` message) with these type fields. */
  protobuf?: ProtobufExpectation;
}

export interface RequestSpec {
  method: string;
  path: string;
  query?: Record<string, Json>;
  headers?: Record<string, string>;
  /** Structured body: JSON, or YAML when the content type says yaml. */
  body?: Json;
  /** Raw text sent as is (duplicate keys, malformed documents, YAML written by hand). */
  bodyText?: string;
  /** Bytes captured earlier (`capture: {x: 'raw:body'}`), sent as is. */
  bodyFrom?: string;
  contentType?: string;
  /**
   * Send as the run's restricted user (`${user}`, a name of its own per scenario) instead of the
   * kit's own identity: the kit's identity impersonates it (`Impersonate-User`), so the kit needs no
   * second credential; the scenario grants the user what it needs through RBAC objects first.
   */
  as?: 'restricted';
}

export interface RequestStep {
  kind: 'request';
  name?: string;
  request: RequestSpec;
  expect?: ResponseExpectation;
  capture?: Record<string, string>;
  /** Repeat until the expectations hold (asynchronous effects such as namespace deletion). */
  retry?: { withinMs: number; everyMs: number };
}

/** One expected watch event, or a group matched in any order. */
export type EventExpectation = { type: string; object?: Json } | { anyOrder: { type: string; object?: Json }[] };

export interface WatchExpectation {
  status?: number[];
  headers?: Record<string, HeaderExpectation>;
  events?: EventExpectation[];
  /** The whole wait for the expected events. */
  withinMs: number;
  /** After the expected events, how long no further (compared) event may arrive. */
  quietMs?: number;
  /** Event types left out of the comparison. */
  skip?: string[];
  /** The watch is refused as expired: HTTP 410, or an ERROR event carrying a 410 Status. */
  gone?: boolean;
  at?: PathCheck[];
}

export interface WatchStep {
  kind: 'watch';
  name?: string;
  request: RequestSpec;
  /** Requests made once the stream is open. */
  actions: RequestStep[];
  expect: WatchExpectation;
  capture?: Record<string, string>;
}

export type WaitFor = 'history-window' | 'continue-ttl';

export interface WaitStep {
  kind: 'wait';
  name?: string;
  ms: number;
  /** Wait for one of the server's configured windows (read from CLI options) plus `ms`. */
  for?: WaitFor;
}

export type Step = RequestStep | WatchStep | WaitStep;

export interface ScenarioHeader {
  id: string;
  /** Rule references into `rules.yaml` (`core-protocol.md#Chunked list procedure: 4`); the first is primary. */
  rules: string[];
  tags: Tag[];
  needs: Feature[];
  /** `group/version/resource` that must be served (per discovery) for the scenario to apply. */
  serves: string[];
  description?: string;
  /** Where it was defined, for errors and reports. */
  file: string;
  /** Namespaces the runner creates for it (`${ns}`, `${ns2}`, ...). */
  namespaces: number;
  /** Set on the instances of a parameterised scenario. */
  resource?: ResourceProfile;
}

export interface YamlScenario extends ScenarioHeader {
  kind: 'yaml';
  steps: Step[];
}

export interface CodeScenario extends ScenarioHeader {
  kind: 'code';
  run: (ctx: ScenarioContext) => Promise<void>;
  /** The write verbs, body formats, versions and boundary values its requests use (coverage.ts). */
  exercises?: Exercises;
}

export type Scenario = YamlScenario | CodeScenario;

/** One request and its response as recorded for reports. */
export interface TraceEntry {
  step: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string | string[]>;
  responseBody?: string;
  events?: string[];
  millis: number;
  error?: string;
}

export type Outcome = 'passed' | 'failed' | 'skipped';

export interface ScenarioResult {
  id: string;
  area: string;
  rules: string[];
  /** Rule texts from the catalogue, in the same order. */
  ruleTexts: string[];
  tags: Tag[];
  file: string;
  outcome: Outcome;
  /** The scenario failed and was listed as known failing: it does not fail the run. */
  knownFailing?: boolean;
  /** Why it was skipped, or the first expectation that failed. */
  message?: string;
  /** Index of the failing step (YAML) or the step label (code). */
  step?: string;
  trace: TraceEntry[];
  millis: number;
}

/** The HTTP response as a scenario sees it. */
export interface HttpResult {
  status: number;
  headers: Record<string, string | string[]>;
  /** Decoded text (gzip undone when the server compressed). */
  text: string;
  raw: Buffer;
  /** Parsed JSON body when it parses, otherwise undefined. */
  json: Json | undefined;
}

export interface WatchEvent {
  type: string;
  object: Json;
}

export interface RequestOptions {
  query?: Record<string, Json>;
  headers?: Record<string, string>;
  body?: Json;
  bodyText?: string;
  bodyRaw?: Buffer;
  contentType?: string;
  /** Label in the trace. */
  step?: string;
}

/** An open watch stream for TypeScript scenarios. */
export interface OpenWatch {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  /** Every event received so far. */
  readonly events: WatchEvent[];
  /** Waits until `count` events (of any type but those skipped) arrived, or `withinMs` elapsed. */
  waitFor(count: number, withinMs: number, skip?: string[]): Promise<WatchEvent[]>;
  close(): void;
}

/** What a TypeScript scenario receives from the runner. */
export interface ScenarioContext {
  /** `${ns}`, `${ns2}`, `${n}`, resource variables and captures. */
  vars: Map<string, Json | Buffer>;
  /** Substitutes `${var}` in a string. */
  sub(text: string): string;
  resource?: ResourceProfile;
  /** Collection path of `resource` in `${ns}` (or cluster-wide when cluster-scoped). */
  collection(): string;
  /** A sample object of `resource` with the given name, merged with `overrides`. */
  sample(name: string, overrides?: JsonObject): JsonObject;
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
  watch(path: string, options?: RequestOptions): Promise<OpenWatch>;
  /** Throws an expectation failure with this message. */
  fail(message: string): never;
  /** Applies a YAML-style response expectation and throws on the first failure. */
  check(result: HttpResult, expectation: ResponseExpectation, label?: string): void;
  sleep(ms: number): Promise<void>;
  settings: RunSettings;
}

/** Run-wide settings a scenario may read. */
export interface RunSettings {
  historyWindowMs?: number;
  continueTtlMs?: number;
  /** Group suffix the server uses, `svc.io` unless told otherwise. */
  groupSuffix: string;
  /** The default time bound for watch expectations. */
  watchTimeoutMs: number;
  /** The kit's own admission webhook, when the run has one (`--webhook-url`, or local for the in-process server). */
  webhook?: { url: string; caBundle: string };
}
