/**
 * Documents embedded in other documents by name: a scheduler profile's `pluginConfig[].args` is
 * the arguments kind of the plugin it names (`DefaultPreemption` takes `DefaultPreemptionArgs` of
 * the configuration's own apiVersion). As the scheduler does when it loads its configuration, the
 * args of a plugin with an arguments kind are given that kind (missing args are created), defaulted
 * and validated; args of other plugins (out-of-tree ones) are left as they are.
 */
import { type FieldError, fieldInvalid } from '../api/index.js';
import { isObject } from '../json/index.js';
import type { KindRegistration } from '../schema/index.js';
import { defaulterOf } from '../schema/index.js';

/** An embedded document, defaulted, to validate with its kind at `path`. */
export interface EmbeddedDocument {
  path: string;
  value: Record<string, unknown>;
  registration: KindRegistration;
}

type Json = Record<string, unknown>;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The kinds whose documents embed others: `apiVersion kind` to the finder. */
const EMBEDDERS: Record<string, (doc: Json, apiVersion: string, lookup: Lookup, errors: FieldError[]) => EmbeddedDocument[]> = {
  'svcscheduler.config.svc.io/v1 SvcSchedulerConfiguration': pluginArgs,
};

type Lookup = (apiVersion: string, kind: string) => KindRegistration | undefined;

/**
 * Finds, types and defaults (in place) the documents embedded in `doc`; problems found on the
 * way (args of another plugin's kind) go to `errors`.
 */
export function embeddedDocuments(
  apiVersion: string,
  kind: string,
  doc: unknown,
  lookup: Lookup,
  errors: FieldError[],
): EmbeddedDocument[] {
  const find = EMBEDDERS[`${apiVersion} ${kind}`];
  return find && isObject(doc) ? find(doc, apiVersion, lookup, errors) : [];
}

function pluginArgs(doc: Json, apiVersion: string, lookup: Lookup, errors: FieldError[]): EmbeddedDocument[] {
  const out: EmbeddedDocument[] = [];
  list(doc.profiles).forEach((profile, i) => {
    if (!isObject(profile)) return;
    list(profile.pluginConfig).forEach((entry, j) => {
      if (!isObject(entry) || typeof entry.name !== 'string') return;
      const expected = `${entry.name}Args`;
      const registration = lookup(apiVersion, expected);
      if (!registration) return;
      const path = `profiles[${i}].pluginConfig[${j}].args`;
      const args = entry.args ?? {};
      if (!isObject(args)) {
        errors.push(fieldInvalid(path, args, `must be an object (${expected})`));
        return;
      }
      if (args.kind !== undefined && args.kind !== expected) {
        errors.push(fieldInvalid(`${path}.kind`, args.kind, `the args of plugin ${entry.name} are of kind ${expected}`));
        return;
      }
      if (args.apiVersion !== undefined && args.apiVersion !== apiVersion) {
        errors.push(fieldInvalid(`${path}.apiVersion`, args.apiVersion, `must be ${apiVersion}, the configuration's apiVersion`));
        return;
      }
      const { apiVersion: _v, kind: _k, ...rest } = args;
      const typed: Json = { apiVersion, kind: expected, ...rest };
      defaulterOf(registration.schema)(typed);
      entry.args = typed;
      out.push({ path, value: typed, registration });
    });
  });
  return out;
}
