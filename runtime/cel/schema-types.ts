/**
 * Schema descriptors to CEL types, per the specification's table:
 *
 * | schema                                   | CEL type                                        |
 * |------------------------------------------|-------------------------------------------------|
 * | object with properties                   | object type (declared, so field access is checked) |
 * | object with additional properties (map)  | map<string, V>                                  |
 * | embedded resource                        | object, plus apiVersion, kind, metadata.name/generateName |
 * | preserve-unknown object                  | object of its declared fields only              |
 * | int-or-string, quantity, raw             | dyn                                             |
 * | list (any list type)                     | list<T> (set/map lists: see values.ts)          |
 * | boolean / number / integer / string      | bool / double / int / string                    |
 * | string format byte / date, date-time / duration | bytes / timestamp / duration             |
 */
import type { Environment } from '@marcbachmann/cel-js';
import { deref, type ObjectSchema, type SchemaNode } from '../schema/index.js';
import { celFields, objectClass } from './schema-objects.js';
import { celEquals } from './values.js';

export const TIMESTAMP = 'google.protobuf.Timestamp';
export const DURATION = 'google.protobuf.Duration';

/** The CEL type of a string-valued node by its format. */
export function stringFormatType(format: string | undefined): string {
  switch (format) {
    case 'byte':
      return 'bytes';
    case 'date':
    case 'date-time':
      return TIMESTAMP;
    case 'duration':
      return DURATION;
    default:
      return 'string';
  }
}

/** Names the libraries use for their own types; a schema type never takes one. */
const BUILTIN_TYPE =
  /^(google\.|kubernetes\.|(Cel|Optional|Strings)Namespace$|(bool|int|uint|double|string|bytes|list|map|null_type|type|dyn|optional)$)/;

/** A type name the library accepts: letters, digits, `_` and `.`, not starting with a digit. */
function sanitize(name: string): string {
  const clean = name
    .replace(/[^A-Za-z0-9_.]/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.\d]+|\.$/g, '');
  if (clean.length < 2) return `svc.object.${clean || 'anonymous'}`;
  return BUILTIN_TYPE.test(clean) ? `svc.${clean}` : clean;
}

/** Declares the object types a schema needs in one environment and names the CEL type of any node. */
export class SchemaTypes {
  private readonly names = new Map<ObjectSchema, string>();
  private readonly taken = new Set<string>();

  constructor(private readonly env: Environment) {}

  /** The CEL type of `node`; `hint` names anonymous object types after where they sit. */
  typeOf(node: SchemaNode, hint: string): string {
    const n = deref(node);
    switch (n.type) {
      case 'object':
        return this.objectType(n, hint);
      case 'map':
        return `map<string, ${this.typeOf(n.values, `${hint}.value`)}>`;
      case 'list':
        return `list<${this.typeOf(n.items, `${hint}.item`)}>`;
      case 'boolean':
        return 'bool';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'string':
        return stringFormatType(n.format);
      // The descriptors' own string kinds map as the formats they stand for.
      case 'bytes':
        return stringFormatType('byte');
      case 'date':
      case 'date-time':
      case 'duration':
        return stringFormatType(n.type);
      case 'quantity':
      case 'int-or-string':
      case 'raw':
        return 'dyn';
    }
  }

  private objectType(schema: ObjectSchema, hint: string): string {
    const known = this.names.get(schema);
    if (known) return known;
    const base = sanitize(schema.typeName ?? `svc.object.${hint}`);
    let name = base;
    for (let i = 2; this.taken.has(name); i++) name = `${base}_${i}`;
    this.taken.add(name);
    // Named before its fields are declared, so recursive schemas refer to it.
    this.names.set(schema, name);
    const fields: Record<string, string> = {};
    for (const f of celFields(schema)) fields[f.escaped] = this.typeOf(f.schema, `${name}.${f.escaped}`);
    this.env.registerType(name, { ctor: objectClass(schema), fields });
    this.env.registerOperator(`${name} == ${name}`, celEquals);
    return name;
  }
}
