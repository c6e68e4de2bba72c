/**
 * What an object schema looks like to expressions: its accessible fields under their escaped names
 * (embedded resources always have apiVersion, kind, metadata.name and metadata.generateName), and
 * one CelObject subclass per object schema so values of different object types stay distinct.
 */
import { deref, type FieldSchema, type ObjectSchema, type SchemaNode } from '../schema/index.js';
import { escapePropertyName } from './escaping.js';
import { CelObject } from './values.js';

export interface CelField {
  /** The JSON property name. */
  readonly name: string;
  /** The name expressions use. */
  readonly escaped: string;
  readonly schema: SchemaNode;
}

const STRING: SchemaNode = { type: 'string' };

function field(name: string, schema: SchemaNode): FieldSchema {
  return { name, schema };
}

const implicitMetadata = new WeakMap<ObjectSchema, ObjectSchema>();
const BARE_METADATA: ObjectSchema = {
  type: 'object',
  typeName: 'svc.EmbeddedObjectMeta',
  fields: [field('name', STRING), field('generateName', STRING)],
};

/** Declared metadata plus name and generateName, which expressions may always read. */
function metadataWithNames(declared: SchemaNode | undefined): ObjectSchema {
  const meta = declared ? deref(declared) : undefined;
  if (meta?.type !== 'object') return BARE_METADATA;
  let merged = implicitMetadata.get(meta);
  if (!merged) {
    const extra = BARE_METADATA.fields.filter((f) => !meta.fields.some((m) => m.name === f.name));
    merged = { ...meta, fields: [...meta.fields, ...extra] };
    implicitMetadata.set(meta, merged);
  }
  return merged;
}

function embeddedFields(schema: ObjectSchema): FieldSchema[] {
  const declared = new Map(schema.fields.map((f) => [f.name, f]));
  const out = schema.fields.filter((f) => f.name !== 'metadata');
  for (const name of ['apiVersion', 'kind']) if (!declared.has(name)) out.push(field(name, STRING));
  out.push(field('metadata', metadataWithNames(declared.get('metadata')?.schema)));
  return out;
}

const fieldsCache = new WeakMap<ObjectSchema, readonly CelField[]>();

/** The fields expressions can read, in declaration order; inaccessible names are left out. */
export function celFields(schema: ObjectSchema): readonly CelField[] {
  let fields = fieldsCache.get(schema);
  if (!fields) {
    const source = schema.embeddedResource ? embeddedFields(schema) : schema.fields;
    fields = source.flatMap((f) => {
      const escaped = escapePropertyName(f.name);
      return escaped === undefined ? [] : [{ name: f.name, escaped, schema: f.schema }];
    });
    fieldsCache.set(schema, fields);
  }
  return fields;
}

const classes = new WeakMap<ObjectSchema, typeof CelObject>();

/** The runtime class of values of `schema`. */
export function objectClass(schema: ObjectSchema): typeof CelObject {
  let cls = classes.get(schema);
  if (!cls) {
    cls = class extends CelObject {};
    Object.defineProperty(cls, 'name', { value: schema.typeName ?? 'CelObject' });
    classes.set(schema, cls);
  }
  return cls;
}
