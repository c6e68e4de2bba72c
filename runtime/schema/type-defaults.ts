import { type SchemaNode, deref } from './types.js';

/** Code that defaults one value of a named type, in place. */
export type NamedTypeDefaulter = (value: Record<string, unknown>) => void;

/**
 * Runs `defaulters` (by the schema's type name, `core.v1.Container`) on every value of those types
 * in `value`, outer values first, as upstream's generated `SetObjectDefaults_<Kind>` calls the
 * hand-written `SetDefaults_<Type>` functions. Subtrees that hold none of the types are not walked.
 */
export function applyTypeDefaults(value: unknown, schema: SchemaNode, defaulters: Readonly<Record<string, NamedTypeDefaulter>>): void {
  if (Object.keys(defaulters).length === 0) return;
  let walker = walkers.get(defaulters);
  if (!walker) walkers.set(defaulters, (walker = new Walker(defaulters)));
  walker.visit(value, schema);
}

/** One walker per set of defaulters, so that which schema nodes hold a defaulted type is learnt once. */
const walkers = new WeakMap<object, Walker>();

class Walker {
  /** Whether a node holds a defaulted type at or below it (false while being computed: cycles add nothing). */
  private readonly holds = new Map<SchemaNode, boolean>();

  constructor(private readonly defaulters: Readonly<Record<string, NamedTypeDefaulter>>) {}

  visit(value: unknown, schema: SchemaNode): void {
    if (value === null || typeof value !== 'object' || !this.holdsDefaulted(schema)) return;
    const node = deref(schema);
    switch (node.type) {
      case 'object': {
        if (Array.isArray(value)) return;
        const rec = value as Record<string, unknown>;
        const own = node.typeName === undefined ? undefined : this.defaulters[node.typeName];
        own?.(rec);
        for (const field of node.fields) this.visit(rec[field.name], field.schema);
        return;
      }
      case 'list':
        if (Array.isArray(value)) for (const item of value) this.visit(item, node.items);
        return;
      case 'map':
        if (!Array.isArray(value)) for (const item of Object.values(value)) this.visit(item, node.values);
        return;
      default:
        return;
    }
  }

  private holdsDefaulted(schema: SchemaNode): boolean {
    const node = deref(schema);
    const known = this.holds.get(node);
    if (known !== undefined) return known;
    this.holds.set(node, false);
    let result = false;
    switch (node.type) {
      case 'object':
        result =
          (node.typeName !== undefined && node.typeName in this.defaulters) || node.fields.some((f) => this.holdsDefaulted(f.schema));
        break;
      case 'list':
        result = this.holdsDefaulted(node.items);
        break;
      case 'map':
        result = this.holdsDefaulted(node.values);
        break;
    }
    this.holds.set(node, result);
    return result;
  }
}
