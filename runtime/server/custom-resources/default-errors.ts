import { type FieldError, aggregateFieldErrors, fieldInvalid, fieldTypeInvalid } from '../../api/index.js';
import { RuleSet } from '../../cel/index.js';
import { type JsonValue, cloneJson, jsonEqual } from '../../json/index.js';
import { type KindRegistration, type SchemaNode, deref, prune } from '../../schema/index.js';
import { Collector } from '../../validate/index.js';
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
export function defaultErrors(kind: KindRegistration, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const visit = (node: SchemaNode, at: string, steps: Step[], embedding: Embedding | undefined): void => {
    const n = deref(node);
    // A definition's defaults are parsed JSON.
    const value = (node.default !== undefined ? node.default : n.default) as JsonValue | undefined;
    if (value !== undefined) errors.push(...errorsOfDefault(kind, node, value, `${at}.default`, steps, embedding));
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
  return errors;
}

function errorsOfDefault(
  kind: KindRegistration,
  node: SchemaNode,
  value: JsonValue,
  at: string,
  steps: Step[],
  embedding: Embedding | undefined,
): FieldError[] {
  const n = deref(node);
  if (value === null) {
    // The generated validator reads null as absent; a default of null is only a value where null is one.
    return node.nullable || n.nullable || n.type === 'raw'
      ? []
      : [fieldTypeInvalid(at, null, `must be of type ${typeName(node)}, not null`)];
  }
  const errors: FieldError[] = [];
  const inMeta = embedding?.inMeta === true;
  if (!inMeta && !jsonEqual(prune(cloneJson(value), node) as JsonValue, value))
    errors.push(fieldInvalid(at, value, 'must not have unknown fields'));
  // Each check runs only when the ones before found nothing, as upstream's chain.
  const meta = inMeta ? surroundingMetaErrors(value, embedding, at) : embeddedResourceErrors(value, node, at);
  if (meta.length > 0) return [...errors, ...meta];
  const schema = schemaErrorsAt(kind, value, steps, at);
  if (schema.length > 0) return [...errors, ...schema];
  const rules = new RuleSet(node).validate(value, value);
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
  kind.validate(place(steps, cloneJson(value)), '', sink);
  const position = steps.map((s, i) => (s === 0 ? '[0]' : i === 0 ? s : `.${s}`)).join('');
  return sink.errors
    .filter((e) => e.field === position || e.field.startsWith(`${position}.`) || e.field.startsWith(`${position}[`))
    .map((e) => ({ ...e, field: below(at, e.field.slice(position.length)) }));
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

/** The JSON type a node's values have, as the generated validators name it. */
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
      return 'integer or string';
    default:
      return 'string';
  }
}
