/**
 * CustomResourceDefinitions: checked when written (upstream's validation, then the definition's
 * kinds compiled and their CEL rules' estimated cost checked), and served by the Registrar once
 * stored. Declared by the CustomResourceDefinition kind as the `custom-resource-definitions` hook.
 */
import { type FieldError, type JsonApiObject, fieldInvalid, fieldRequired, invalid } from '../../runtime/api/index.js';
import type { CustomResourceHost, HookHost, KindHook } from '../../runtime/server/index.js';
import { UNPRUNED, defaultErrors, hasUnprunedDefaults } from './default-errors.js';
import { definitionErrors, updateErrors } from './definition-errors.js';
import { Registrar, cleanupFinalizer } from './registrar.js';
import { ruleErrors } from './rule-errors.js';

export { cleanupFinalizer } from './registrar.js';
export { type ProjectKinds, definitionKinds, projectKinds } from './compile.js';
export { type DefinitionFile, DefinitionInstallError, installDefinitions } from './install.js';
export { DEFINITION_TIMEOUT_MS, DefinitionNotServedError, untilDefinitionServed } from './readiness.js';
export { defaultErrors } from './default-errors.js';
export { ruleErrors } from './rule-errors.js';
export { storedDefinitionResources } from './stored-resources.js';

export function customResourceDefinitions({ context, declaring }: HookHost): KindHook {
  const host = context.customResources;
  const registrar = host ? new Registrar(context, host, declaring) : undefined;
  const cleanup = cleanupFinalizer(declaring.group);
  return {
    prepareCreate(object) {
      const meta = (object.metadata ??= {});
      if (!meta.finalizers?.includes(cleanup)) meta.finalizers = [...(meta.finalizers ?? []), cleanup];
    },
    async prepareWrite(object, old) {
      const errors = definitionErrors(object);
      if (old) errors.push(...updateErrors(object, old));
      if (errors.length === 0 && host) errors.push(...(await compiledErrors(object, host, old)));
      if (errors.length > 0) {
        throw invalid({ group: declaring.group, kind: declaring.kind }, object.metadata?.name ?? '', errors);
      }
    },
    resume: () => registrar?.start() ?? Promise.resolve(),
    idle: () => registrar?.idle() ?? Promise.resolve(),
    close: () => registrar?.stop(),
  };
}

/**
 * What compiling the definition finds: the loader's complaint, rules that do not compile or cost
 * too much, or defaults that do not fit their schema (pruned ones only required of a definition
 * whose stored version has none that are not: upstream's requirePrunedDefaults).
 */
async function compiledErrors(crd: JsonApiObject, host: CustomResourceHost, old?: JsonApiObject): Promise<FieldError[]> {
  let kinds: Awaited<ReturnType<CustomResourceHost['compile']>>['kinds'];
  try {
    ({ kinds } = await host.compile(crd));
  } catch (e) {
    return [loaderError(e instanceof Error ? e.message : String(e))];
  }
  const versions = ((crd.spec as { versions?: { name?: string }[] }).versions ?? []).map((v) => v?.name);
  const check = (requirePruned: boolean) =>
    ownKinds(crd, kinds).flatMap((k) => {
      const path = `spec.versions[${versions.indexOf(k.version)}].schema.openAPIV3Schema`;
      // Defaults are checked with the rules, so only once the rules compile.
      const rules = ruleErrors(k.schema, path);
      return rules.length > 0 ? rules : defaultErrors(k, path, { requirePruned });
    });
  const errors = check(true);
  // The stored version is built only when its answer matters.
  if (!old || !errors.some((e) => e.detail === UNPRUNED)) return errors;
  const stored = await host.compile(old).catch(() => undefined);
  return stored && ownKinds(old, stored.kinds).some(hasUnprunedDefaults) ? check(false) : errors;
}

/** The kinds compiled from a definition that are its own (not its list kind). */
function ownKinds<K extends { kind: string }>(crd: JsonApiObject, kinds: readonly K[]): K[] {
  const kind = (crd.spec as { names?: { kind?: string } }).names?.kind;
  return kinds.filter((k) => k.kind === kind);
}

/**
 * The generator's loader names its source and a JSON path (`customresourcedefinitions/<name>:
 * .spec.versions[0].schema.openAPIV3Schema.properties.spec.type: expected ...`): the error at that
 * field, in the definition's field path (`properties[spec]`), without the source.
 */
function loaderError(message: string): FieldError {
  const m = /^[^:]*: (\.spec\.[^:]*): (.*)$/s.exec(message);
  // Never the loader's source name: the client knows which definition it wrote.
  if (!m) return fieldInvalid('spec', '', message.replace(/^[^\s:]*[/\\][^\s:]*: (?:\(document\): )?/, ''));
  const problem = m[2]!.replace(/(defined in )(\.spec\.\S*)/, (_, lead: string, at: string) => lead + definitionPath(at));
  return typedError(definitionPath(m[1]!), problem);
}

/** A loader's JSON path in a definition (`.spec.versions[0]...properties.spec`) as upstream's field path (`properties[spec]`). */
function definitionPath(loaderPath: string): string {
  // The loader spells extensions by its own names (`a["x-svc-validations"]`); a definition by upstream's.
  const parts = loaderPath
    .slice(1)
    .replace(/\["x-svc-([^"]+)"\]/g, '.x-kubernetes-$1')
    .split('.');
  const schemaAt = parts.indexOf('openAPIV3Schema');
  const path: string[] = parts.slice(0, schemaAt + 1);
  for (let i = schemaAt + 1; i < parts.length; i++) {
    if (schemaAt >= 0 && parts[i] === 'properties' && i + 1 < parts.length) path.push(`properties[${parts[++i]}]`);
    else path.push(parts[i]!);
  }
  return path.join('.');
}

/**
 * A loader problem that names upstream's error type (`Forbidden: must be empty to be structural`,
 * `Required value: because it is defined in ...`) is that type of error; any other is an invalid value.
 */
function typedError(field: string, problem: string): FieldError {
  const forbidden = /^Forbidden: (.*)$/s.exec(problem);
  if (forbidden) return { type: 'FieldValueForbidden', field, badValue: '', detail: forbidden[1]! };
  const required = /^Required value: (.*)$/s.exec(problem);
  if (required) return fieldRequired(field, required[1]!);
  return fieldInvalid(field, '', problem);
}
