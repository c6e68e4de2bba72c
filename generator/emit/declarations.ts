import type { GroupVersion, NamedType, ObjectNode, TypeNode } from '../model/index.js';
import { typeKey } from '../model/index.js';
import { typeWord } from './initialisms.js';

/**
 * The declarations of a group/version as emitters name them: every named type, and every anonymous
 * object with fields hoisted out of it under a name derived from its place in its type. Shared by
 * the emitters so that one object has one name in all of them.
 */
export interface Declaration {
  /** The name of the object at this place. */
  name: string;
  node: TypeNode;
  /** Where the declaration comes from, for its doc line. */
  origin: string;
  description?: string;
  named?: NamedType;
  /**
   * The declaration holding the shape: `name` itself, or a declaration of another type with the
   * same shape (types.ts prints `export type <name> = <declaredAs>`; functions are declaredAs's).
   */
  declaredAs: string;
  /** The same shape met again in the same type: uses the name of its first place, declares nothing. */
  repeat?: boolean;
}

/** An anonymous object with fields, where it sits in its named type. */
interface Place {
  node: TypeNode;
  root: NamedType;
  rootIndex: number;
  segments: string[];
  origin: string;
  depth: number;
  order: number;
  key: string;
}

/**
 * Named types in order, each followed by the anonymous objects hoisted out of it, in the order
 * they appear. A hoisted object is named after its own type and the shortest tail of its path
 * that is still free (`ChallengeMatchExpression`, then `ChallengeNodeSelectorTermMatchExpression`),
 * with field names spelled as Go spells initialisms (`dns01` -> `DNS01`). Names are handed out
 * shallowest place first across the group/version, so a kind's `status` is `<Kind>Status` even
 * when a pod template's status sits deeper in its spec; at one depth kinds go before other types
 * and a longer type name before a shorter one (`ClusterClass.spec` before `Cluster.classSpec`).
 * Within a type, objects of the same shape share one name; a shape already declared under another
 * type gets this type's name as an alias of that declaration (`IssuerSpec = ClusterIssuerSpec`),
 * so every type's names read as its own whichever kinds sit beside it. `reserved` names are never
 * handed out (the module's other exports).
 */
export function collectDeclarations(gv: GroupVersion, reserved: Iterable<string> = []): Declaration[] {
  const taken = new Set([...reserved, ...gv.types.map((t) => t.id.name)]);
  const places = collectPlaces(gv, shapeKeys());
  const byPriority = [...places].sort(
    (a, b) =>
      a.depth - b.depth ||
      Number(!a.root.kind) - Number(!b.root.kind) ||
      b.root.id.name.length - a.root.id.name.length ||
      a.rootIndex - b.rootIndex ||
      a.order - b.order,
  );
  const inType = new Map<NamedType, Map<string, Declaration>>();
  const declaredAs = new Map<string, string>();
  const named = new Map<Place, Declaration>();
  for (const p of byPriority) {
    const { key } = p;
    let own = inType.get(p.root);
    if (!own) inType.set(p.root, (own = new Map()));
    const first = own.get(key);
    if (first) {
      named.set(p, { name: first.name, node: p.node, origin: p.origin, declaredAs: first.declaredAs, repeat: true });
      continue;
    }
    const name = freeTail(taken, p.root.id.name, p.segments);
    taken.add(name);
    const d: Declaration = { name, node: p.node, origin: p.origin, declaredAs: declaredAs.get(key) ?? name };
    if (p.node.description !== undefined) d.description = p.node.description;
    if (d.declaredAs === name) declaredAs.set(key, name);
    own.set(key, d);
    named.set(p, d);
  }
  const out: Declaration[] = [];
  let next = 0; // places are in type order
  for (const t of gv.types) {
    const d: Declaration = { name: t.id.name, node: t.node, origin: `${t.source.file} ${t.source.path}`, named: t, declaredAs: t.id.name };
    const description = t.description ?? t.node.description;
    if (description !== undefined) d.description = description;
    out.push(d);
    for (; next < places.length && places[next]!.root === t; next++) out.push(named.get(places[next]!)!);
  }
  return out;
}

/** The name each node prints as; a node met at two places (an embedded type's fields) keeps its first. */
export function nodeNames(declarations: readonly Declaration[]): Map<TypeNode, string> {
  const names = new Map<TypeNode, string>();
  for (const d of declarations) if (!names.has(d.node)) names.set(d.node, d.name);
  return names;
}

/** `root + tail`: the shortest tail of the path that is free, else the whole path numbered from 2. */
function freeTail(taken: ReadonlySet<string>, root: string, segments: string[]): string {
  return freeName(
    taken,
    segments.map((_, i) => root + segments.slice(-(i + 1)).join('')),
  );
}

/** The first candidate not taken, else the last one numbered from 2. */
export function freeName(taken: ReadonlySet<string>, candidates: string[]): string {
  for (const c of candidates) if (!taken.has(c)) return c;
  const last = candidates[candidates.length - 1]!;
  let i = 2;
  while (taken.has(`${last}${i}`)) i++;
  return `${last}${i}`;
}

/**
 * Every anonymous object with fields below the named types, in tree order; below a shape its type
 * already had at the same depth or shallower, only the place itself (what is below repeats what is
 * below the first, at depths no smaller, so it names nothing).
 */
function collectPlaces(gv: GroupVersion, keyOf: (node: TypeNode) => string): Place[] {
  const places: Place[] = [];
  let seen = new Map<string, number>();
  const visit = (node: TypeNode, at: Omit<Place, 'node' | 'order' | 'key'>): void => {
    switch (node.kind) {
      case 'object': {
        if (!isInterface(node)) return;
        const key = keyOf(node);
        places.push({ ...at, node, order: places.length, key });
        const depth = seen.get(key);
        if (depth !== undefined && depth <= at.depth) return;
        seen.set(key, at.depth);
        visitFields(node, at);
        return;
      }
      case 'list':
        return visit(node.items, { ...at, segments: singularTail(at.segments), origin: `${at.origin}.items` });
      case 'map': {
        const last = at.segments[at.segments.length - 1] ?? '';
        return visit(node.values, {
          ...at,
          segments: [...at.segments.slice(0, -1), `${last}Value`],
          origin: `${at.origin}.additionalProperties`,
        });
      }
      default:
        return;
    }
  };
  const visitFields = (node: ObjectNode, at: Omit<Place, 'node' | 'order' | 'key'>): void => {
    for (const f of node.fields)
      visit(f.type, {
        ...at,
        segments: [...at.segments, typeWord(f.name)],
        origin: `${at.origin}.properties.${f.name}`,
        depth: at.depth + 1,
      });
  };
  gv.types.forEach((root, rootIndex) => {
    seen = new Map();
    const at = { root, rootIndex, segments: [], origin: `${root.source.file} ${root.source.path}`, depth: 0 };
    if (root.node.kind === 'object') visitFields(root.node, at);
    else visit(root.node, { ...at, segments: ['Item'], depth: 1 });
  });
  return places;
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

/**
 * Keys equal for two nodes exactly when they print as the same TypeScript type. Each node's key is
 * its own part plus its children's keys, interned to a number, so keying every node is linear.
 */
function shapeKeys(): (node: TypeNode) => string {
  const keys = new Map<TypeNode, string>();
  const interned = new Map<string, string>();
  const key = (node: TypeNode): string => {
    let k = keys.get(node);
    if (k === undefined) {
      const shape = ownShape(node, key);
      k = interned.get(shape);
      if (k === undefined) interned.set(shape, (k = `#${interned.size}`));
      keys.set(node, k);
    }
    return k;
  };
  return key;
}

function ownShape(node: TypeNode, key: (node: TypeNode) => string): string {
  const enumKey = node.constraints?.enum ? `=${JSON.stringify(node.constraints.enum)}` : '';
  const nullKey = node.nullable ? '?' : '';
  switch (node.kind) {
    case 'object':
      return `{${node.fields.map((f) => `${f.name}${f.required ? '!' : ''}:${key(f.type)}`).join(',')}${node.preserveUnknown ? ',*' : ''}${node.embeddedResource ? ',^' : ''}}${nullKey}`;
    case 'list':
      return `[${key(node.items)}]${nullKey}`;
    case 'map':
      return `<${key(node.values)}>${nullKey}`;
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

/** An object gets an interface of its own when it has fields; an empty one is a record type. */
export function isInterface(node: ObjectNode): boolean {
  return node.fields.length > 0;
}
