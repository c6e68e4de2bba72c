import { type SchemaNode, deref } from './types.js';

/**
 * Drops fields the schema does not know, in place, as the server does before storing (unknown
 * fields are never persisted, except below nodes that preserve them). Returns the value.
 */
export function prune(value: unknown, schema: SchemaNode): unknown {
  pruneNode(value, schema);
  return value;
}

function pruneNode(value: unknown, schema: SchemaNode): void {
  if (value === null || typeof value !== 'object') return;
  const node = deref(schema);
  switch (node.type) {
    case 'object': {
      if (Array.isArray(value)) return;
      const rec = value as Record<string, unknown>;
      const fields = new Map(node.fields.map((f) => [f.name, f.schema]));
      for (const key of Object.keys(rec)) {
        // An embedded resource's type and object meta are left whole, whatever its schema declares
        // of them (upstream's pruning skips them; object meta has rules of its own).
        if (node.embeddedResource && EMBEDDED_META.has(key)) continue;
        const field = fields.get(key);
        if (field) pruneNode(rec[key], field);
        else if (!node.preserveUnknown) delete rec[key];
      }
      return;
    }
    case 'list':
      if (Array.isArray(value)) for (const item of value) pruneNode(item, node.items);
      return;
    case 'map':
      if (!Array.isArray(value)) for (const item of Object.values(value)) pruneNode(item, node.values);
      return;
    default:
      return;
  }
}

/** An embedded resource keeps its type meta and metadata even when its schema does not list them. */
const EMBEDDED_META = new Set(['apiVersion', 'kind', 'metadata']);
