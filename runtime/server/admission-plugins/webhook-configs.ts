import { type CompiledExpressionProgram, compileExpression } from '../../cel/index.js';
import type { JsonApiObject, LabelSelectorObject } from '../../api/index.js';
import type { AdmissionHost } from '../admission.js';
import type { Watch } from '../../store/index.js';
import { collectionPrefix, decodeObjects } from '../objects.js';
import type { ServedResource } from '../resources.js';

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
 * uses: read again only after an object under the resource's prefix changed. A store watch on the
 * prefix sees every change (other servers on one etcd included), and a write through this server
 * is noted at once by {@link stored} (a watch event may come after the writer's next request), so a
 * configuration written through the API applies to the next request; other writes read nothing.
 */
export class StoredConfiguration<T> {
  #value: T | undefined;
  /** Changes noted so far; a read is current while none came after it started. */
  #changes = 0;
  #readAt = -1;
  /** The read in flight and the changes it started after: a caller that saw a newer one reads again. */
  #reading: { changes: number; done: Promise<T> } | undefined;
  #watch: Watch | undefined;
  readonly #resource: ServedResource | undefined;
  readonly #prefix: string | undefined;

  constructor(
    private readonly host: AdmissionHost,
    resource: string,
    private readonly build: (objects: JsonApiObject[]) => T,
  ) {
    const group = host.registry.servedGroup(ADMISSION_REGISTRATION_GROUP);
    this.#resource = host.registry.resources().find((x) => x.group === group && x.resource === resource);
    this.#prefix = this.#resource ? collectionPrefix(this.#resource, undefined) : undefined;
  }

  /** The objects as of the last change noted, when they have been read since; undefined when a read is due. */
  currentNow(): T | undefined {
    return this.#readAt === this.#changes ? this.#value : undefined;
  }

  /** The objects as of the last change noted. */
  async current(): Promise<T> {
    const changes = this.#changes;
    if (this.#readAt === changes) return this.#value!;
    if (this.#reading && this.#reading.changes >= changes) return this.#reading.done;
    const reading = {
      changes,
      done: this.#read(changes).finally(() => {
        if (this.#reading === reading) this.#reading = undefined;
      }),
    };
    this.#reading = reading;
    return reading.done;
  }

  /** A write of `key` through this server committed: a key under the prefix makes the next request read again. */
  stored(key: string): void {
    if (this.#prefix !== undefined && key.startsWith(this.#prefix)) this.#changes++;
  }

  async #read(changes: number): Promise<T> {
    const r = this.#resource;
    let objects: JsonApiObject[] = [];
    if (r) {
      const listed = await this.host.store.list(this.#prefix!);
      this.#follow(listed.revision);
      objects = await decodeObjects(listed.items, r);
    }
    objects.sort((a, b) => compare(a.metadata?.name ?? '', b.metadata?.name ?? ''));
    const value = this.build(objects);
    if (changes > this.#readAt) {
      this.#value = value;
      this.#readAt = changes;
    }
    return value;
  }

  /** Watches the prefix after `revision` unless a watch is open: each event is a change; a watch that ends is one too (nothing is missed). */
  #follow(revision: number): void {
    if (this.#watch) return;
    let watch: Watch;
    try {
      watch = this.host.store.watch(this.#prefix!, revision);
    } catch {
      this.#changes++; // not watchable now (compacted, closed): read again next time
      return;
    }
    this.#watch = watch;
    void (async () => {
      try {
        for await (const _event of watch) this.#changes++;
      } catch {
        // an expired or broken watch: the change below reads and watches again
      } finally {
        if (this.#watch === watch) this.#watch = undefined;
        this.#changes++;
      }
    })();
  }
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
