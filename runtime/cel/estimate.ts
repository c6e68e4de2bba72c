/**
 * Worst-case cost estimate of a checked expression, computed before it ever runs. Sizes come from
 * the schema (maxItems, maxLength, maxProperties); unbounded values get the largest size that fits
 * in one request, as the real system assumes. The node costs mirror the runtime costs in program.ts.
 */
import { deref, type SchemaNode } from '../schema/index.js';
import { type AstNode, type ComprehensionArgs, type IsAstNode, operandsOf } from './ast.js';
import { COST, regexCost, traversalCost } from './cost.js';
import { unescapePropertyName } from './escaping.js';
import { INTERNAL_PREFIX } from './lib/register.js';
import { celFields } from './schema-objects.js';

/** Largest request body the server accepts, the bound for everything without a declared maximum. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/** What the estimator knows about a value: its largest size and, for containers, its parts. */
export interface SizeShape {
  /** Characters of a string, bytes of bytes, items of a list, entries of a map; 0 for scalars. */
  readonly maxSize: number;
  /** List items, map values. */
  element(): SizeShape;
  /** Map keys (what a comprehension over a map iterates). */
  key(): SizeShape;
  /** An object's field by its escaped name. */
  field(name: string): SizeShape | undefined;
}

const shape = (maxSize: number, parts: Partial<Omit<SizeShape, 'maxSize'>> = {}): SizeShape => ({
  maxSize,
  element: parts.element ?? (() => UNBOUNDED),
  key: parts.key ?? (() => UNBOUNDED),
  field: parts.field ?? (() => undefined),
});

/** A value of unknown size: anything up to a whole request. */
export const UNBOUNDED: SizeShape = {
  maxSize: MAX_REQUEST_BYTES,
  element: () => UNBOUNDED,
  key: () => UNBOUNDED,
  field: () => UNBOUNDED,
};

/** A value whose size does not matter (numbers, booleans, timestamps). */
export const SCALAR_SHAPE = shape(0);
const SCALAR = SCALAR_SHAPE;

/** Smallest JSON encoding of a value of `node`, to bound how many fit in one request. */
function minSerializedSize(node: SchemaNode): number {
  const n = deref(node);
  switch (n.type) {
    case 'string':
      return 2 + (n.minLength ?? 0);
    case 'boolean':
      return 4;
    case 'integer':
    case 'number':
    case 'int-or-string':
    case 'quantity':
    case 'raw':
      return 1;
    default:
      return 2;
  }
}

const maxCount = (declared: number | undefined, perItem: number): number => declared ?? Math.floor((MAX_REQUEST_BYTES - 2) / perItem);

/** The size shape of values of a schema node. */
export function shapeOfSchema(node: SchemaNode): SizeShape {
  const n = deref(node);
  switch (n.type) {
    case 'string':
    case 'bytes':
      return shape(n.maxLength ?? MAX_REQUEST_BYTES - 2);
    case 'list':
      return shape(maxCount(n.maxItems, minSerializedSize(n.items) + 1), { element: () => shapeOfSchema(n.items) });
    case 'map':
      return shape(maxCount(n.maxProperties, minSerializedSize(n.values) + 4), {
        element: () => shapeOfSchema(n.values),
        key: () => shape(MAX_REQUEST_BYTES - 2),
      });
    case 'object': {
      const fields = celFields(n);
      return shape(0, {
        field: (name) => {
          const f = fields.find((x) => x.escaped === name || x.name === unescapePropertyName(name));
          return f ? shapeOfSchema(f.schema) : undefined;
        },
      });
    }
    case 'int-or-string':
    case 'quantity':
    case 'raw':
      return UNBOUNDED;
    default:
      return SCALAR;
  }
}

interface Estimate {
  cost: number;
  shape: SizeShape;
}

type Scope = ReadonlyMap<string, SizeShape>;

const fnName = (node: AstNode): string => {
  const name = Array.isArray(node.args) ? String(node.args[0]) : '';
  return name.startsWith(INTERNAL_PREFIX) ? name.slice(INTERNAL_PREFIX.length) : name;
};

const larger = (a: SizeShape, b: SizeShape): SizeShape => (a.maxSize >= b.maxSize ? a : b);

const isStringLike = (n: AstNode): boolean => n.checkedType?.name === 'string' || n.checkedType?.name === 'bytes';

class Estimator {
  constructor(private readonly isNode: IsAstNode) {}

  estimate(node: AstNode, scope: Scope): Estimate {
    const meta = node.meta;
    if (meta.alternate) {
      const inner = this.estimate(meta.alternate, scope);
      return { cost: COST.operation + inner.cost, shape: inner.shape };
    }
    if (meta.macro) return this.macro(node, scope);
    switch (node.op) {
      case 'value':
        return { cost: 0, shape: typeof node.args === 'string' || node.args instanceof Uint8Array ? shape(node.args.length) : SCALAR };
      case 'id':
        return { cost: COST.operation, shape: scope.get(String(node.args)) ?? UNBOUNDED };
      case 'comprehension':
        return this.comprehension(node.args as ComprehensionArgs, scope);
      case 'list':
      case 'map':
        return this.literal(node, scope);
      case 'call':
      case 'rcall':
        return this.call(node, scope);
      default:
        return this.operator(node, scope);
    }
  }

  private all(nodes: AstNode[], scope: Scope): Estimate[] {
    return nodes.map((n) => this.estimate(n, scope));
  }

  private literal(node: AstNode, scope: Scope): Estimate {
    const parts = this.all(operandsOf(node, this.isNode), scope);
    const cost = (node.op === 'list' ? COST.listLiteral : COST.mapLiteral) + parts.reduce((s, p) => s + p.cost, 0);
    const element = parts.map((p) => p.shape).reduce(larger, SCALAR);
    const count = node.op === 'list' ? parts.length : parts.length / 2;
    return { cost, shape: shape(count, { element: () => element, key: () => element }) };
  }

  private comprehension(args: ComprehensionArgs, scope: Scope): Estimate {
    const iterable = this.estimate(args.iterable, scope);
    const init = this.estimate(args.init, scope);
    const isMap = args.iterable.checkedType?.kind === 'map';
    const inner = new Map(scope).set(args.iterVarName, isMap ? iterable.shape.key() : iterable.shape.element());
    const step = this.estimate(args.step, inner);
    const n = iterable.shape.maxSize;
    const pushed = this.pushedShape(args.step, inner) ?? SCALAR;
    return {
      cost: iterable.cost + init.cost + n * step.cost,
      shape: args.kind === 'quantifier' ? SCALAR : shape(n, { element: () => pushed }),
    };
  }

  /** The shape of what a map/filter step appends, to size the resulting list's items. */
  private pushedShape(step: AstNode, scope: Scope): SizeShape | undefined {
    if (step.op === 'accuPush' && this.isNode(step.args)) return this.estimate(step.args, scope).shape;
    if (step.op === 'comprehension') return undefined;
    for (const o of operandsOf(step, this.isNode)) {
      const found = this.pushedShape(o, scope);
      if (found) return found;
    }
    return undefined;
  }

  private macro(node: AstNode, scope: Scope): Estimate {
    const m: Readonly<Record<string, unknown>> = node.meta.macro ?? {};
    const parts = (['receiver', 'arg', 'val'] as const).map((k) => m[k]).filter(this.isNode);
    const estimates = this.all(parts, scope);
    let cost = COST.operation + estimates.reduce((s, e) => s + e.cost, 0);
    let result = estimates[0]?.shape ?? SCALAR;
    if (typeof m.var === 'string' && this.isNode(m.exp)) {
      const bound = this.estimate(m.exp, new Map(scope).set(m.var, result));
      cost += bound.cost;
      result = bound.shape;
    }
    if (Array.isArray(m.args)) cost += this.all(m.args.filter(this.isNode), scope).reduce((s, e) => s + e.cost, 0);
    return { cost, shape: result };
  }

  private operator(node: AstNode, scope: Scope): Estimate {
    const operands = operandsOf(node, this.isNode);
    const parts = this.all(operands, scope);
    const sum = parts.reduce((s, p) => s + p.cost, 0);
    const [l, r] = parts;
    const base = node.op === 'accuValue' ? 0 : COST.operation;
    switch (node.op) {
      case '.':
      case '.?': {
        const name = String((node.args as unknown[])[1]);
        const from = l?.shape ?? UNBOUNDED;
        return { cost: base + sum, shape: from.field(name) ?? from.element() };
      }
      case '[]':
      case '[?]':
        return { cost: base + sum, shape: l?.shape.element() ?? UNBOUNDED };
      case '?:': {
        const [c, a, b] = parts;
        return {
          cost: base + (c?.cost ?? 0) + Math.max(a?.cost ?? 0, b?.cost ?? 0),
          shape: larger(a?.shape ?? SCALAR, b?.shape ?? SCALAR),
        };
      }
      case '+': {
        const size = (l?.shape.maxSize ?? 0) + (r?.shape.maxSize ?? 0);
        const element = l?.shape.element;
        return { cost: base + sum + traversalCost(size), shape: shape(size, element ? { element } : {}) };
      }
      case 'in':
        return { cost: base + sum + (r?.shape.maxSize ?? 0), shape: SCALAR };
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const size = Math.min(l?.shape.maxSize ?? 0, r?.shape.maxSize ?? 0);
        const first = operands[0];
        return { cost: base + sum + (first && isStringLike(first) ? traversalCost(size) : size), shape: SCALAR };
      }
      default:
        return { cost: base + sum, shape: SCALAR };
    }
  }

  private call(node: AstNode, scope: Scope): Estimate {
    const operands = operandsOf(node, this.isNode);
    const parts = this.all(operands, scope);
    const cost = COST.operation + parts.reduce((s, p) => s + p.cost, 0);
    const name = fnName(node);
    const receiverIsList = node.op === 'rcall' && operands[0]?.checkedType?.kind === 'list';
    const [first, second, third] = parts.map((p) => p.shape);
    const n = first?.maxSize ?? 0;
    const argSize = second?.maxSize ?? 0;
    const result = (extra: number, out: SizeShape = SCALAR): Estimate => ({ cost: cost + extra, shape: out });
    switch (name) {
      case 'matches':
      case 'find':
      case 'findAll': {
        const pattern = operands[1];
        const patternLength = pattern?.op === 'value' && typeof pattern.args === 'string' ? pattern.args.length : argSize;
        const input = shape(n);
        const out = name === 'findAll' ? shape(n, { element: () => input }) : name === 'find' ? input : SCALAR;
        return result(regexCost(patternLength, n), out);
      }
      case 'contains':
      case 'startsWith':
      case 'endsWith':
      case 'charAt':
        return result(traversalCost(n + argSize));
      case 'indexOf':
      case 'lastIndexOf':
        return result(receiverIsList ? n : traversalCost(n + argSize));
      case 'lowerAscii':
      case 'upperAscii':
      case 'trim':
      case 'reverse':
      case 'substring':
      case 'quote':
        return result(traversalCost(n), shape(name === 'quote' ? 2 * n + 2 : n));
      case 'replace': {
        const out = n * Math.max(1, third?.maxSize ?? 0) + (third?.maxSize ?? 0) + n;
        return result(traversalCost(n + out), shape(out));
      }
      case 'split':
        return result(traversalCost(n), shape(n, { element: () => shape(n) }));
      case 'join': {
        const total = n * ((first?.element().maxSize ?? 0) + argSize);
        return result(traversalCost(total), shape(total));
      }
      case 'min':
      case 'max':
        return result(n, first?.element() ?? SCALAR);
      case 'sum':
      case 'isSorted':
        return result(n);
      case 'url':
      case 'isURL':
      case 'quantity':
      case 'isQuantity':
        return result(traversalCost(node.op === 'call' ? n : argSize));
      case 'check':
        return result(COST.authorizationCheck);
      // Optional list and map entries (rewrite-syntax.ts): no larger than the literal written.
      case 'optList':
        return result(n, first ?? UNBOUNDED);
      case 'optMap':
        return result(n, shape(n, { key: () => first?.element() ?? UNBOUNDED, element: () => second?.element() ?? UNBOUNDED }));
      default:
        return result(0, node.checkedType?.kind === 'primitive' ? SCALAR : UNBOUNDED);
    }
  }
}

/** The worst-case cost of `root` with the declared variables' sizes in `scope`. */
export function estimateCost(root: AstNode, isNode: IsAstNode, scope: Scope): number {
  return new Estimator(isNode).estimate(root, scope).cost;
}
