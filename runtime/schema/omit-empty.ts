import { type SchemaNode, deref } from './types.js';

/**
 * Drops empty (and null) maps and lists at optional fields, and zero values ("", 0, false) at
 * fields marked `zeroIsUnset`, in place, as a built-in kind's Go types do: their optional maps and
 * slices are `omitempty`, and Protobuf, the storage encoding, cannot tell an empty one from an
 * absent one; a non-pointer scalar holds its zero when unset, so defaulting fills it and JSON
 * omits it (and Protobuf clients always send it). Required fields keep theirs. Values the schema does
 * not type (raw JSON, preserved unknown fields, embedded objects) are kept as they are, as Go keeps
 * them as bytes. Returns the value.
 */
export function omitEmpty(value: unknown, schema: SchemaNode): unknown {
  visit(value, schema);
  return value;
}

function visit(value: unknown, schema: SchemaNode): void {
  if (value === null || typeof value !== 'object') return;
  const node = deref(schema);
  switch (node.type) {
    case 'object': {
      if (Array.isArray(value) || node.preserveUnknown || node.embeddedResource) return;
      const rec = value as Record<string, unknown>;
      for (const field of node.fields) {
        const v = rec[field.name];
        if (v === undefined) continue;
        visit(v, field.schema);
        const kind = deref(field.schema).type;
        if (field.required) continue;
        if (((kind === 'map' || kind === 'list') && isEmpty(v)) || (field.zeroIsUnset && isZero(v))) delete rec[field.name];
      }
      return;
    }
    case 'list':
      if (Array.isArray(value)) for (const item of value) visit(item, node.items);
      return;
    case 'map':
      if (!Array.isArray(value)) for (const item of Object.values(value)) visit(item, node.values);
      return;
    default:
      return;
  }
}

function isEmpty(v: unknown): boolean {
  if (v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v).length === 0;
}

/** Go's zero value of a scalar (null too: JSON's null decodes to the zero of a non-pointer field). */
function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false || v === null;
}
