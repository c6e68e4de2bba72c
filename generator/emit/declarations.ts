import type { GroupVersion, NamedType, ObjectNode, TypeNode } from '../model/index.js';
import { typeKey } from '../model/index.js';
import { pascalCase } from '../print/index.js';

/**
 * The declarations of a group/version as emitters name them: every named type, and every anonymous
 * object with fields hoisted out of it under a name derived from its path. Shared by the types,
 * validators and defaulters emitters so that one object has one name in all of them.
 */
export interface Declaration {
  name: string;
  node: TypeNode;
  /** Where the declaration comes from, for its doc line. */
  origin: string;
  description?: string;
  named?: NamedType;
  /** Same shape as an earlier declaration: uses its name, declares nothing. */
  alias?: boolean;
}

/**
 * Named types in order, each followed by the anonymous objects hoisted out of it. A hoisted object
 * is named after its root type and the shortest tail of its path that is still free
 * (`ChallengeMatchExpression`, then `ChallengeNodeSelectorTermMatchExpression`); objects of the
 * same shape share one declaration, so repeated subtrees (a pod template in three kinds) are
 * declared once.
 */
export function collectDeclarations(gv: GroupVersion, keyOf: (node: TypeNode) => string): Declaration[] {
  const taken = new Set(gv.types.map((t) => t.id.name));
  const byShape = new Map<string, string>();
  const out: Declaration[] = [];
  const pickName = (root: string, segments: string[]): string => {
    for (let n = 1; n <= segments.length; n++) {
      const name = root + segments.slice(-n).join('');
      if (!taken.has(name)) return name;
    }
    const base = root + segments.join('');
    let i = 2;
    while (taken.has(`${base}${i}`)) i++;
    return `${base}${i}`;
  };
  const hoist = (node: TypeNode, root: string, segments: string[], origin: string): void => {
    switch (node.kind) {
      case 'object': {
        if (!isInterface(node)) return;
        const key = keyOf(node);
        const same = byShape.get(key);
        if (same !== undefined) {
          out.push({ name: same, node, origin, alias: true });
          return;
        }
        const d: Declaration = { name: pickName(root, segments), node, origin };
        taken.add(d.name);
        byShape.set(key, d.name);
        if (node.description !== undefined) d.description = node.description;
        out.push(d);
        visitFields(node, root, segments, origin);
        return;
      }
      case 'list':
        return hoist(node.items, root, singularTail(segments), `${origin}.items`);
      case 'map':
        return hoist(
          node.values,
          root,
          [...segments.slice(0, -1), `${segments[segments.length - 1] ?? ''}Value`],
          `${origin}.additionalProperties`,
        );
      default:
        return;
    }
  };
  const visitFields = (node: ObjectNode, root: string, segments: string[], origin: string): void => {
    for (const f of node.fields) hoist(f.type, root, [...segments, pascalCase(f.name)], `${origin}.properties.${f.name}`);
  };
  for (const t of gv.types) {
    const d: Declaration = { name: t.id.name, node: t.node, origin: `${t.source.file} ${t.source.path}`, named: t };
    const description = t.description ?? t.node.description;
    if (description !== undefined) d.description = description;
    out.push(d);
    if (t.node.kind === 'object') visitFields(t.node, t.id.name, [], d.origin);
    else hoist(t.node, t.id.name, ['Item'], d.origin);
  }
  return out;
}

/** `[..., 'Conditions']` -> `[..., 'Condition']`: list items are named in the singular. */
function singularTail(segments: string[]): string[] {
  const last = segments[segments.length - 1] ?? 'Item';
  const singular = /ies$/.test(last)
    ? `${last.slice(0, -3)}y`
    : /(ss|us|is)$/.test(last)
      ? `${last}Item`
      : /(x|ch|sh|sses)es$/.test(last)
        ? last.slice(0, -2)
        : /s$/.test(last)
          ? last.slice(0, -1)
          : `${last}Item`;
  return [...segments.slice(0, -1), singular];
}

/** A key equal for two nodes exactly when they print as the same TypeScript type. */
export function shapeKey(node: TypeNode): string {
  const enumKey = node.constraints?.enum ? `=${JSON.stringify(node.constraints.enum)}` : '';
  const nullKey = node.nullable ? '?' : '';
  switch (node.kind) {
    case 'object':
      return `{${node.fields.map((f) => `${f.name}${f.required ? '!' : ''}:${shapeKey(f.type)}`).join(',')}${node.preserveUnknown ? ',*' : ''}${node.embeddedResource ? ',^' : ''}}${nullKey}`;
    case 'list':
      return `[${shapeKey(node.items)}]${nullKey}`;
    case 'map':
      return `<${shapeKey(node.values)}>${nullKey}`;
    case 'ref':
      return `&${typeKey(node.target)}${nullKey}`;
    case 'scalar':
      return `${node.type}${enumKey}${nullKey}`;
    case 'time':
      return `time${enumKey}${nullKey}`;
    default:
      return `${node.kind}${enumKey}${nullKey}`;
  }
}

/** Identity of a node for validators and defaulters: shape plus every constraint and rule. */
export function exactKey(node: TypeNode): string {
  return JSON.stringify(node, (key, value: unknown) => (key === 'description' || key === 'spec' ? undefined : value));
}

/** An object gets an interface of its own when it has fields; an empty one is a record type. */
export function isInterface(node: ObjectNode): boolean {
  return node.fields.length > 0;
}
