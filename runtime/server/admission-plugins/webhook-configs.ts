import { type CompiledExpressionProgram, compileExpression } from '../../cel/index.js';
import type { JsonApiObject, LabelSelectorObject } from '../../api/index.js';
import type { AdmissionHost, AdmissionRequest } from '../admission.js';
import { collectionPrefix, decodeObjects } from '../objects.js';

export const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.svc.io';

/** The fields of a webhook (admissionregistration.svc.io/v1) the dispatcher reads, defaults applied. */
export interface WebhookSpec {
  name: string;
  clientConfig: { url?: string; service?: { namespace: string; name: string; path?: string; port?: number }; caBundle?: string };
  rules?: Array<{ operations?: string[]; apiGroups?: string[]; apiVersions?: string[]; resources?: string[]; scope?: string }>;
  failurePolicy?: 'Fail' | 'Ignore';
  matchPolicy?: 'Exact' | 'Equivalent';
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: Array<{ name: string; expression: string }>;
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** One webhook of one configuration, its match conditions compiled. */
export interface ConfiguredWebhook {
  configuration: string;
  spec: WebhookSpec;
  conditions: Array<{ name: string; program: CompiledExpressionProgram | Error }>;
}

const CONDITION_VARIABLES = { object: 'dyn', oldObject: 'dyn', request: 'dyn' } as const;

/**
 * Objects of one admissionregistration resource, read from the store and turned into what a plugin
 * uses: read again only when the store's revision moved since the last read, so an object created
 * through the API applies to the next request, and a server without writes reads nothing.
 */
export class StoredConfiguration<T> {
  #revision = -1;
  #value: T | undefined;
  /** The read in flight and the revision it started at: a caller that saw a newer one reads again. */
  #reading: { revision: number; done: Promise<T> } | undefined;

  constructor(
    private readonly host: AdmissionHost,
    private readonly resource: string,
    private readonly build: (objects: JsonApiObject[]) => T,
  ) {}

  /** The objects as of the store's revision when `request` was first looked at (one revision read per request). */
  async current(request: AdmissionRequest): Promise<T> {
    const revision = await revisionFor(this.host, request);
    if (revision === this.#revision) return this.#value!;
    if (this.#reading && this.#reading.revision >= revision) return this.#reading.done;
    const reading = {
      revision,
      done: this.#read(revision).finally(() => {
        if (this.#reading === reading) this.#reading = undefined;
      }),
    };
    this.#reading = reading;
    return reading.done;
  }

  async #read(revision: number): Promise<T> {
    const r = this.host.registry
      .resources()
      .find((x) => x.group === this.host.registry.servedGroup(ADMISSION_REGISTRATION_GROUP) && x.resource === this.resource);
    const objects = r ? await decodeObjects((await this.host.store.list(collectionPrefix(r, undefined))).items, r) : [];
    objects.sort((a, b) => compare(a.metadata?.name ?? '', b.metadata?.name ?? ''));
    const value = this.build(objects);
    if (revision > this.#revision) {
      this.#value = value;
      this.#revision = revision;
    }
    return value;
  }
}

/**
 * The store's revision, read once per admission request and shared by every plugin that reads
 * configuration (on a networked store each read is a round trip).
 */
const revisions = new WeakMap<AdmissionRequest, Promise<number>>();

function revisionFor(host: AdmissionHost, request: AdmissionRequest): Promise<number> {
  let revision = revisions.get(request);
  if (!revision) {
    revision = host.store.currentRevision();
    revisions.set(request, revision);
  }
  return revision;
}

/** The webhooks of the stored configurations of one kind, in the order of configuration names, then of the list. */
export function webhookConfigurations(
  host: AdmissionHost,
  resource: 'mutatingwebhookconfigurations' | 'validatingwebhookconfigurations',
): StoredConfiguration<ConfiguredWebhook[]> {
  return new StoredConfiguration(host, resource, (configs) =>
    configs.flatMap((config) =>
      ((config.webhooks as WebhookSpec[] | undefined) ?? []).map((spec) => ({
        configuration: config.metadata?.name ?? '',
        spec,
        conditions: compileConditions(spec.matchConditions),
      })),
    ),
  );
}

export function compileConditions(conditions: WebhookSpec['matchConditions']): ConfiguredWebhook['conditions'] {
  return (conditions ?? []).map((c) => ({ name: c.name, program: compileCondition(c.expression) }));
}

/** A match condition compiled with its variables; the error when it does not compile. */
export function compileCondition(expression: string): CompiledExpressionProgram | Error {
  try {
    return compileExpression(expression, { variables: CONDITION_VARIABLES, costLimits: { estimated: Number.POSITIVE_INFINITY } });
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
