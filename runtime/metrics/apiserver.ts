/**
 * The named metrics of the API server, defined once so every stage observes into the same ones:
 * the request counter and latency, long-running requests, the deprecated-API gauge, stored object
 * counts, and the authorizer and admission webhook latencies (the authorization and admission
 * stages observe into those). Names, labels and classes are upstream's.
 */
import { MetricRegistry, type MetricRegistryOptions } from './registry.js';

/** Upstream's request latency buckets (seconds). */
const REQUEST_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** Upstream's webhook latency buckets (seconds). */
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 25];

const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** The labels of `apiserver_request_duration_seconds`; `apiserver_request_total` adds `code`. */
export type RequestLabels = Readonly<Record<(typeof REQUEST_LABELS)[number], string>>;

/** Counts the objects of every stored resource, for `apiserver_storage_objects` (asked at each scrape). */
export type StorageCounter = () => Promise<ReadonlyMap<string, number>>;

export class ApiServerMetrics {
  readonly registry: MetricRegistry;
  readonly requestTotal;
  readonly requestDuration;
  readonly longRunningRequests;
  readonly requestedDeprecatedApis;
  readonly storageObjects;
  readonly authorizationDecisions;
  readonly authorizationWebhookDuration;
  readonly admissionWebhookDuration;
  readonly admissionWebhookRejections;
  readonly auditEvents;
  readonly auditLevels;
  #countStorage: StorageCounter | undefined;
  /**
   * Requests counted since `apiserver_request_total` was last read, by their labels: added to it
   * when it is read (a scrape), so a request costs a Map entry rather than prom-client's label
   * checks and hashing on the hot path; what any reader sees is the same.
   */
  readonly #uncounted = new Map<string, { labels: RequestLabels & { code: string }; n: number }>();

  constructor(options: MetricRegistryOptions) {
    const r = (this.registry = new MetricRegistry(options));
    const self = this;
    this.requestTotal = r.counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...REQUEST_LABELS, 'code'],
      stability: 'STABLE',
      collect() {
        for (const { labels, n } of self.#uncounted.values()) this.inc(labels, n);
        self.#uncounted.clear();
      },
    });
    this.requestDuration = r.latencyHistogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: REQUEST_LABELS,
      stability: 'STABLE',
      buckets: REQUEST_BUCKETS,
    });
    this.longRunningRequests = r.gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      stability: 'STABLE',
    });
    this.requestedDeprecatedApis = r.gauge({
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
      stability: 'STABLE',
    });
    this.storageObjects = r.gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      labelNames: ['resource'],
      stability: 'STABLE',
      async collect() {
        if (!self.#countStorage) return;
        this.reset();
        for (const [resource, n] of await self.#countStorage()) this.set({ resource }, n);
      },
    });
    this.authorizationDecisions = r.counter({
      name: 'apiserver_authorization_decisions_total',
      help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
      labelNames: ['type', 'name', 'decision'],
      stability: 'ALPHA',
    });
    this.authorizationWebhookDuration = r.histogram({
      name: 'apiserver_authorization_webhook_duration_seconds',
      help: 'Request latency in seconds.',
      labelNames: ['name', 'result'],
      stability: 'ALPHA',
      buckets: WEBHOOK_BUCKETS,
    });
    this.admissionWebhookDuration = r.histogram({
      name: 'apiserver_admission_webhook_admission_duration_seconds',
      help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      labelNames: ['name', 'type', 'operation', 'rejected'],
      stability: 'STABLE',
      buckets: WEBHOOK_BUCKETS,
    });
    this.admissionWebhookRejections = r.counter({
      name: 'apiserver_admission_webhook_rejection_count',
      help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
      labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
      stability: 'ALPHA',
    });
    this.auditEvents = r.counter({
      name: 'apiserver_audit_event_total',
      help: 'Counter of audit events generated and sent to the audit backend.',
      stability: 'ALPHA',
    });
    this.auditLevels = r.counter({
      name: 'apiserver_audit_level_total',
      help: 'Counter of policy levels for audit events (1 per request).',
      labelNames: ['level'],
      stability: 'ALPHA',
    });
  }

  /** Counts one request in `apiserver_request_total` and observes its latency in `apiserver_request_duration_seconds`. */
  recordRequest(labels: RequestLabels, code: string, seconds: number): void {
    // Label values never hold a NUL (names, codes, verbs), so it separates them unambiguously.
    const key = `${labels.verb}\0${labels.dry_run}\0${labels.group}\0${labels.version}\0${labels.resource}\0${labels.subresource}\0${labels.scope}\0${labels.component}`;
    this.requestDuration.observe(key, labels, seconds);
    const counterKey = `${key}\0${code}`;
    const counted = this.#uncounted.get(counterKey);
    if (counted) counted.n++;
    else this.#uncounted.set(counterKey, { labels: { ...labels, code }, n: 1 });
  }

  /** Where `apiserver_storage_objects` gets its counts. */
  countStorageWith(counter: StorageCounter): void {
    this.#countStorage = counter;
  }

  /** The exposition for `GET /metrics`. */
  async render(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.text() };
  }
}
