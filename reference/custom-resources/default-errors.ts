import { type FieldError, aggregateFieldErrors, fieldInvalid } from '../../runtime/api/index.js';
import { RuleSet } from '../../runtime/cel/index.js';
import { type JsonValue, cloneJson, jsonEqual } from '../../runtime/json/index.js';
import { type KindRegistration, type SchemaNode, deref, prune, validatorOf } from '../../runtime/schema/index.js';
import { Collector, openAPIErrors } from '../../runtime/validate/index.js';
import { embeddedResourceErrors } from './embedded-resource-errors.js';

/** A step from the resource root to a schema node: a field name, or the (first) item of a list. */
type Step = string | 0;

/** Inside an embedded resource: its schema, the steps from it, and whether they are in its type or object meta. */
interface Embedding {
  resource: SchemaNode;
  steps: Step[];
  inMeta: boolean;
}

const META_FIELDS = new Set(['metadata', 'apiVersion', 'kind']);

/** The detail of a default with fields its schema would prune. */
export const UNPRUNED = 'must not have unknown fields';

/**
 * The `default` values of one version's compiled schema that are not valid where they sit, as
 * upstream's ValidateDefaults (apiextensions' schema/defaulting) reports them, at the default's
 * place in the definition (`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].default`):
 * a default must be pruned (`must not have unknown fields`), hold valid embedded type and object
 * meta, pass the schema at its position (types, enums, formats, patterns, bounds, required fields
 * below it: the kind's own generated validator, run over an object holding only the default) and
 * then its CEL rules (`oldSelf` is the default too). A null default needs `nullable`. Defaults
 * below additionalProperties are not followed, and those at the root's metadata, apiVersion and
 * kind are refused before compiling (schema-errors.ts), as upstream.
 */
export function defaultErrors(kind: KindRegistration, path: string, options: { requirePruned?: boolean } = {}): FieldError[] {
  const errors: FieldError[] = [];
  const requirePruned = options.requirePruned ?? true;
  forEachDefault(kind, path, (d) => errors.push(...errorsOfDefault(kind, d, requirePruned)));
  return errors;
}

/**
 * Whether a default of the kind has fields its schema would prune. An update keeps a definition
 * stored with such a default updatable: pruned defaults are then not required (upstream's
 * requirePrunedDefaults, which looks at the stored definition).
 */
export function hasUnprunedDefaults(kind: KindRegistration): boolean {
  let found = false;
  forEachDefault(kind, '', (d) => {
    found ||= d.embedding?.inMeta !== true && d.value !== null && isUnpruned(d.value, d.node);
  });
  return found;
}

/** One default of a schema: its node, value, place in the definition and position in an object. */
interface Default {
  node: SchemaNode;
  value: JsonValue;
  /** `<schema path>.default`. */
  at: string;
  steps: Step[];
  embedding: Embedding | undefined;
}

/** Every default of the kind's schema below the root's type and object meta, not below additionalProperties. */
function forEachDefault(kind: KindRegistration, path: string, each: (d: Default) => void): void {
  const visit = (node: SchemaNode, at: string, steps: Step[], embedding: Embedding | undefined): void => {
    const n = deref(node);
    // A definition's defaults are parsed JSON.
    const value = (node.default !== undefined ? node.default : n.default) as JsonValue | undefined;
    if (value !== undefined) each({ node, value, at: `${at}.default`, steps, embedding });
    if (n.type === 'object') {
      for (const f of n.fields) {
        if (steps.length === 0 && META_FIELDS.has(f.name)) continue;
        const inner: Embedding | undefined = n.embeddedResource
          ? { resource: n, steps: [f.name], inMeta: META_FIELDS.has(f.name) }
          : embedding && { ...embedding, steps: [...embedding.steps, f.name] };
        visit(f.schema, `${at}.properties[${f.name}]`, [...steps, f.name], inner);
      }
    } else if (n.type === 'list') {
      visit(n.items, `${at}.items`, [...steps, 0], embedding && { ...embedding, steps: [...embedding.steps, 0] });
    }
  };
  visit(kind.schema, path, [], undefined);
}

const isUnpruned = (value: JsonValue, node: SchemaNode): boolean => !jsonEqual(prune(cloneJson(value), node) as JsonValue, value);

function errorsOfDefault(kind: KindRegistration, { node, value, at, steps, embedding }: Default, requirePruned: boolean): FieldError[] {
  const n = deref(node);
  if (value === null) {
    // The generated validator reads null as absent; a default of null is only a value where null is one.
    return node.nullable || n.nullable || n.type === 'raw' ? [] : [{ ...openAPIErrors.type('', null, typeName(node)), field: at }];
  }
  const errors: FieldError[] = [];
  const inMeta = embedding?.inMeta === true;
  if (requirePruned && !inMeta && isUnpruned(value, node)) errors.push(fieldInvalid(at, value, UNPRUNED));
  // Each check runs only when the ones before found nothing, as upstream's chain.
  const meta = inMeta ? surroundingMetaErrors(value, embedding, at) : embeddedResourceErrors(value, node, at);
  if (meta.length > 0) return [...errors, ...meta];
  const schema = schemaErrorsAt(kind, value, steps, at);
  if (schema.length > 0) return [...errors, ...schema];
  // As the default's own update (oldSelf the default), then, when that passes, as its creation: a
  // rule with optionalOldSelf must accept the default with no old value too (1.30's ratcheting).
  const ruleSet = new RuleSet(node);
  const asUpdate = ruleSet.validate(value, value);
  const rules = asUpdate.length > 0 ? asUpdate : ruleSet.validate(value);
  return [...errors, ...rules.map((e) => ({ ...e, field: below(at, e.field) }))];
}

/**
 * A default inside an embedded resource's type or object meta, placed in an otherwise empty
 * resource (`validation/v1` Validation, as upstream): the resource's meta must stay valid.
 */
function surroundingMetaErrors(value: JsonValue, embedding: Embedding, at: string): FieldError[] {
  const resource = place(embedding.steps, cloneJson(value)) as Record<string, unknown>;
  const surrounding = { apiVersion: 'validation/v1', kind: 'Validation', ...resource };
  const errors = embeddedResourceErrors(surrounding, embedding.resource, '');
  return errors.length > 0 ? [fieldInvalid(at, value, `must result in valid metadata: ${aggregateFieldErrors(errors)}`)] : [];
}

/**
 * What the kind's generated validator says about `value` at its position: it is run over an
 * object holding only the default, and what it reports at or below the position is kept (the
 * skeleton around it may miss required fields; those are not the default's).
 */
function schemaErrorsAt(kind: KindRegistration, value: JsonValue, steps: Step[], at: string): FieldError[] {
  const sink = new Collector();
  validatorOf(kind.schema)(place(steps, cloneJson(value)), '', sink);
  const position = steps.map((s, i) => (s === 0 ? '[0]' : i === 0 ? s : `.${s}`)).join('');
  const within = (field: string) => field === position || field.startsWith(`${position}.`) || field.startsWith(`${position}[`);
  return sink.errors.flatMap((e) => {
    // kube-openapi names the value in its message from the root it validates: here, the default.
    const composite = e.field === '<nil>' ? /^"((?:[^"\\]|\\.)*)" /.exec(e.detail) : null;
    const field = composite ? (JSON.parse(`"${composite[1]}"`) as string) : e.field;
    if (!within(field)) return [];
    const name = field.slice(position.length).replace(/^\./, '');
    const detail = composite
      ? `${JSON.stringify(name)}${e.detail.slice(composite[0].length - 1)}`
      : e.detail.startsWith(`${field} in body `)
        ? `${name}${e.detail.slice(field.length)}`
        : e.detail;
    return [{ ...e, field: composite ? e.field : below(at, field.slice(position.length)), detail }];
  });
}

/** `value` at the end of `steps` from an empty root (`[x]` for a list item). */
function place(steps: readonly Step[], value: unknown): unknown {
  return steps.reduceRight<unknown>((inner, step) => (step === 0 ? [inner] : { [step]: inner }), value);
}

/** A path inside the default (`.a.b`, `[0]`, `a` from the rule walker, or '') under the default's place. */
function below(at: string, inside: string): string {
  if (inside === '') return at;
  return inside.startsWith('.') || inside.startsWith('[') ? `${at}${inside}` : `${at}.${inside}`;
}

/** The JSON type a node's values have, as kube-openapi names it. */
function typeName(node: SchemaNode): string {
  const n = deref(node);
  switch (n.type) {
    case 'object':
    case 'map':
      return 'object';
    case 'list':
      return 'array';
    case 'integer':
    case 'number':
    case 'boolean':
      return n.type;
    case 'int-or-string':
      return 'integer,string';
    default:
      return 'string';
  }
}
