/**
 * Worst-case cost estimate of a checked expression, computed before it ever runs: a port of
 * cel-go v0.17.8's checker/cost.go (the version Kubernetes 1.30 uses) with Kubernetes' library
 * costs (k8s.io/apiserver pkg/cel/library/cost.go, EstimateCallCost). Costs and sizes are
 * [min, max] ranges of uint64 that saturate instead of overflowing, as upstream's.
 *
 * Our parser expands macros differently from cel-go's, so a macro is costed as cel-go's expansion
 * of it would be (`all` as a fold with `@not_strictly_false(accu)` and `accu && p`, ...).
 * Sizes of values the expression does not build come from a SizeEstimator by the value's path
 * (`self`, field names, `@items`, `@keys`, `@values`), as upstream tracks it.
 */
import { type AstNode, type CheckedType, type ComprehensionArgs, type IsAstNode, operandsOf } from './ast.js';
import { INTERNAL_PREFIX } from './lib/register.js';

/** A [min, max] range of cost units or sizes. */
export interface Range {
  readonly min: bigint;
  readonly max: bigint;
}

export const MAX_UINT64 = 2n ** 64n - 1n;

/** What a size estimator is asked about: a value's path from a variable, and its type. */
export interface SizedNode {
  readonly path?: readonly string[];
  readonly type?: CheckedType;
  /** The size the expression itself fixes (literals, results of sized calls). */
  readonly computed?: Range;
}

/** Sizes of values the expression reads; undefined when it knows nothing of the node. */
export type SizeEstimator = (node: SizedNode) => Range | undefined;

export interface EstimateOptions {
  /** Cost of has(): Kubernetes' environments charge nothing (PresenceTestHasCost(false)). */
  presenceTestCost?: bigint;
}

// common/cost.go
const SELECT_AND_IDENT = 1n;
const LIST_CREATE_BASE = 10n;
const MAP_CREATE_BASE = 30n;
const STRING_TRAVERSAL = 0.1;
const REGEX_STRING_LENGTH = 0.25;
const AUTHORIZATION_CHECK = 350_000n;

const range = (min: bigint, max: bigint = min): Range => ({ min, max });
const ZERO = range(0n);
const ONE = range(1n);
const UNKNOWN_SIZE = range(0n, MAX_UINT64);

const addSat = (x: bigint, y: bigint): bigint => (x + y > MAX_UINT64 ? MAX_UINT64 : x + y);
const mulSat = (x: bigint, y: bigint): bigint => (x * y > MAX_UINT64 ? MAX_UINT64 : x * y);
const TWO_TO_64 = 2 ** 64;

/** multiplyByCostFactor: float64(x) * y rounded up, saturating, with Go's float conversions. */
function byFactor(x: bigint, factor: number): bigint {
  const xf = Number(x);
  if (xf > 0 && factor > 0 && xf > TWO_TO_64 / factor) return MAX_UINT64;
  const ceil = Math.ceil(xf * factor);
  return ceil >= TWO_TO_64 ? MAX_UINT64 : BigInt(ceil);
}

const add = (a: Range, b: Range): Range => range(addSat(a.min, b.min), addSat(a.max, b.max));
const multiply = (a: Range, b: Range): Range => range(mulSat(a.min, b.min), mulSat(a.max, b.max));
const multiplyByFactor = (a: Range, factor: number): Range => range(byFactor(a.min, factor), byFactor(a.max, factor));
/** The smaller of two uint64 values (Math.min takes no bigint). */
function smaller(x: bigint, y: bigint): bigint {
  if (y < x) return y;
  return x;
}
const larger = (x: bigint, y: bigint): bigint => (smaller(x, y) === x ? y : x);
const union = (a: Range, b: Range): Range => range(smaller(a.min, b.min), larger(a.max, b.max));
const sum = (ranges: readonly Range[]): Range => ranges.reduce(add, ZERO);

interface CallEstimate {
  cost: Range;
  resultSize?: Range;
}

const SCALAR_TYPES = new Set(['bool', 'double', 'int', 'uint', 'google.protobuf.Duration', 'google.protobuf.Timestamp']);
const isScalar = (t: CheckedType | undefined): boolean => t !== undefined && SCALAR_TYPES.has(t.name);
const isStringLike = (t: CheckedType | undefined): boolean => t?.name === 'string' || t?.name === 'bytes';

/** A function name as written (without our libraries' internal prefix). */
function functionName(node: AstNode): string {
  const name = Array.isArray(node.args) ? String(node.args[0]) : '';
  return name.startsWith(INTERNAL_PREFIX) ? name.slice(INTERNAL_PREFIX.length) : name;
}

/** Namespaced functions (`strings.quote`, `optional.of`) are global functions in cel-go: no target. */
const isNamespace = (n: AstNode | undefined): boolean => n?.op === 'id' && /Namespace$|^optional$/.test(n.checkedType?.name ?? '');

const COMPARISONS = new Set(['<', '<=', '>', '>=']);
const COMPREHENSION_MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
/** Authorization builders and accessors, and quantity arithmetic and accessors (library/cost.go): nominal cost. */
const NOMINAL = new Set([
  'serviceAccount',
  'path',
  'group',
  'resource',
  'subresource',
  'namespace',
  'name',
  'allowed',
  'reason',
  'error',
  'errored',
  'sign',
  'asInteger',
  'isInteger',
  'asApproximateFloat',
  'isGreaterThan',
  'isLessThan',
  'compareTo',
  'add',
  'sub',
]);

class Coster {
  private readonly paths = new Map<AstNode, readonly string[]>();
  private readonly computedSizes = new Map<AstNode, Range>();
  /** The iteration range of each iteration variable in scope, innermost last. */
  private readonly iterRanges = new Map<string, AstNode[]>();

  constructor(
    private readonly isNode: IsAstNode,
    private readonly sizes: SizeEstimator,
    private readonly presenceTestCost: Range,
  ) {}

  cost(node: AstNode | undefined): Range {
    if (!node) return ZERO;
    switch (node.op) {
      case 'value':
        return ZERO;
      case 'id':
        return this.ident(node);
      case '.':
        return this.select(node);
      case 'list':
        return add(sum(this.all(operandsOf(node, this.isNode))), range(LIST_CREATE_BASE));
      case 'map':
        return add(sum(this.all(operandsOf(node, this.isNode))), range(MAP_CREATE_BASE));
      case 'comprehension':
        return this.comprehensionNode(node);
      default:
        return this.call(node);
    }
  }

  private all(nodes: readonly AstNode[]): Range[] {
    return nodes.map((n) => this.cost(n));
  }

  private ident(node: AstNode): Range {
    const name = String(node.args);
    const scope = this.iterRanges.get(name);
    const iterRange = scope?.[scope.length - 1];
    if (iterRange) {
      const kind = iterRange.checkedType?.kind;
      if (kind === 'list' || kind === 'map')
        this.paths.set(node, [...(this.paths.get(iterRange) ?? []), kind === 'list' ? '@items' : '@keys']);
    } else {
      this.paths.set(node, [name]);
    }
    return range(SELECT_AND_IDENT);
  }

  private select(node: AstNode): Range {
    const [operand, field] = node.args as [AstNode, string];
    let cost = this.cost(operand);
    const kind = operand.checkedType?.kind;
    if (kind === 'map' || kind === 'message' || kind === 'param') cost = add(cost, range(SELECT_AND_IDENT));
    this.paths.set(node, [...(this.paths.get(operand) ?? []), field]);
    return cost;
  }

  /** What the estimator knows of a node: upstream's newAstNode. */
  private sized(node: AstNode): SizedNode {
    return { path: this.paths.get(node), type: node.checkedType, computed: this.computedSize(node) };
  }

  private computedSize(node: AstNode): Range | undefined {
    const known = this.computedSizes.get(node);
    if (known) return known;
    switch (node.op) {
      case 'value': {
        const v = node.args;
        if (typeof v === 'string') return range(BigInt([...v].length));
        if (v instanceof Uint8Array) return range(BigInt(v.length));
        return ONE;
      }
      case 'list':
        return range(BigInt(operandsOf(node, this.isNode).length));
      case 'map':
        return range(BigInt(Array.isArray(node.args) ? node.args.length : 0));
      default:
        return isNegativeLiteral(node, this.isNode) ? ONE : undefined;
    }
  }

  /** cel-go's sizeEstimate: computed, else estimated, else 1 for fixed-size types, else unknown. */
  private sizeOf(node: SizedNode): Range {
    return node.computed ?? this.sizes(node) ?? (isScalar(node.type) ? ONE : UNKNOWN_SIZE);
  }

  /** The library's sizeEstimate: no fixed-size fallback. */
  private librarySizeOf(node: SizedNode): Range {
    return node.computed ?? this.sizes(node) ?? UNKNOWN_SIZE;
  }

  private call(node: AstNode): Range {
    if (isNegativeLiteral(node, this.isNode)) return ZERO;
    if (node.op === 'call' || node.op === 'rcall') {
      const macro = this.macro(node);
      if (macro) return macro;
    }
    const operands = operandsOf(node, this.isNode);
    const hasTarget = node.op === 'rcall' && !isNamespace(operands[0]);
    const target = hasTarget ? operands[0] : undefined;
    const args = node.op === 'rcall' ? operands.slice(1) : operands;
    const argCosts = this.all(args);
    const targetCost = target ? this.cost(target) : ZERO;
    const estimate = this.functionCost(node, target, args, argCosts);
    if (estimate.resultSize) this.computedSizes.set(node, estimate.resultSize);
    if (node.op === '[]') {
      const [container] = args;
      const kind = container?.checkedType?.kind;
      if (container && (kind === 'list' || kind === 'map')) {
        this.paths.set(node, [...(this.paths.get(container) ?? []), kind === 'list' ? '@items' : '@values']);
      }
    }
    return add(targetCost, estimate.cost);
  }

  private functionCost(node: AstNode, target: AstNode | undefined, args: AstNode[], argCosts: Range[]): CallEstimate {
    const argSum = sum(argCosts);
    const library = this.libraryCost(node, target, args);
    if (library) return { cost: add(library.cost, argSum), resultSize: library.resultSize };
    const withArgs = (cost: Range, resultSize?: Range): CallEstimate => ({ cost: add(cost, argSum), resultSize });
    const size = (n: AstNode) => this.sizeOf(this.sized(n));
    const [a0, a1, a2] = args;
    const name = functionName(node);
    switch (node.op) {
      case '&&':
      case '||': {
        const [lhs = ZERO, rhs = ZERO] = argCosts;
        return { cost: range(lhs.min, add(lhs, rhs).max) };
      }
      case '?:': {
        const [c = ZERO, t = ZERO, f = ZERO] = argCosts;
        const resultSize = a1 && a2 ? union(size(a1), size(a2)) : undefined;
        return { cost: add(c, union(t, f)), resultSize };
      }
      case 'in':
        if (a1?.checkedType?.kind === 'list') return withArgs(multiplyByFactor(size(a1), 1));
        break;
      case '+': {
        const result = node.checkedType;
        if (!a0 || !a1 || !(isStringLike(result) || result?.kind === 'list')) break;
        const resultSize = add(size(a0), size(a1));
        if (result?.kind === 'list') return withArgs(ONE, resultSize);
        return withArgs(multiplyByFactor(resultSize, STRING_TRAVERSAL), resultSize);
      }
      case '==':
      case '!=':
        return withArgs(this.comparison(a0, a1));
      case 'call':
      case 'rcall':
        return this.overloadCost(name, target, args, withArgs) ?? withArgs(ONE);
      default:
        if (COMPARISONS.has(node.op) && isStringLike(a0?.checkedType)) return withArgs(this.comparison(a0, a1));
    }
    return withArgs(ONE);
  }

  /** Equality and string/bytes ordering: O(min(m, n)) over the smaller maximum. */
  private comparison(a: AstNode | undefined, b: AstNode | undefined): Range {
    if (!a || !b) return ONE;
    const lhs = this.sizeOf(this.sized(a));
    const rhs = this.sizeOf(this.sized(b));
    const smallestMax = smaller(lhs.max, rhs.max);
    return multiplyByFactor(range(smallestMax > 0n ? 1n : 0n, smallestMax), STRING_TRAVERSAL);
  }

  /** cel-go's own overloads with a size-dependent cost (functionCost's switch). */
  private overloadCost(
    name: string,
    target: AstNode | undefined,
    args: AstNode[],
    withArgs: (cost: Range, resultSize?: Range) => CallEstimate,
  ): CallEstimate | undefined {
    const size = (n: AstNode) => this.sizeOf(this.sized(n));
    const [a0] = args;
    if (!a0) return undefined;
    const traversal = (n: AstNode) => multiplyByFactor(size(n), STRING_TRAVERSAL);
    switch (name) {
      case 'bytes':
        if (!target && a0.checkedType?.name === 'string') {
          const sz = size(a0);
          return withArgs(traversal(a0), range(sz.min, mulSat(sz.max, 4n)));
        }
        return undefined;
      case 'string':
        if (!target && a0.checkedType?.name === 'bytes') {
          const sz = size(a0);
          return withArgs(traversal(a0), range(sz.min / 4n, sz.max));
        }
        return undefined;
      case 'quote':
        if (!target && args.length === 1) {
          const sz = size(a0);
          return withArgs(traversal(a0), range(sz.min + 2n, addSat(mulSat(sz.max, 2n), 2n)));
        }
        return undefined;
      case 'startsWith':
      case 'endsWith':
        return target && args.length === 1 ? withArgs(traversal(a0)) : undefined;
      case 'matches':
        // The global matches(s, re) has an overload of its own, costed as any other call.
        if (target && args.length === 1) {
          const strCost = multiplyByFactor(add(size(target), ONE), STRING_TRAVERSAL);
          return withArgs(multiply(strCost, multiplyByFactor(size(a0), REGEX_STRING_LENGTH)));
        }
        return undefined;
      case 'contains':
        if (target && args.length === 1 && target.checkedType?.name === 'string') {
          return withArgs(multiply(traversal(target), traversal(a0)));
        }
        return undefined;
      default:
        return undefined;
    }
  }

  /** Kubernetes' library costs (library/cost.go EstimateCallCost), by function name; the arguments' costs are added by the caller. */
  private libraryCost(node: AstNode, target: AstNode | undefined, args: AstNode[]): CallEstimate | undefined {
    if (node.op !== 'call' && node.op !== 'rcall') return undefined;
    const name = functionName(node);
    const size = (n: SizedNode) => this.librarySizeOf(n);
    const traversal = (n: SizedNode, factor = STRING_TRAVERSAL) => multiplyByFactor(size(n), factor);
    const t = target ? this.sized(target) : undefined;
    const [a0, a1] = args.map((a) => this.sized(a));
    if (name === 'check') return { cost: range(AUTHORIZATION_CHECK) };
    if (NOMINAL.has(name)) return { cost: ONE };
    switch (name) {
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf': {
        if (!t) return undefined;
        const element = this.listElement(t);
        if (!element) return { cost: traversal(t) };
        let elementCost = ONE;
        if (isStringLike(element.type)) elementCost = add(elementCost, traversal(element));
        return { cost: multiply(size(t), elementCost) };
      }
      case 'url':
        return args.length === 1 && a0 ? { cost: traversal(a0) } : undefined;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim': {
        if (!t) return undefined;
        const sz = size(t);
        return { cost: multiplyByFactor(sz, STRING_TRAVERSAL), resultSize: sz };
      }
      case 'replace':
        if (!t || !a0 || !a1) return undefined;
        return { cost: traversal(t, 2 * STRING_TRAVERSAL), resultSize: replaceSize(size(t), size(a0), size(a1)) };
      case 'split': {
        if (!t) return undefined;
        const sz = size(t);
        let max = sz.max;
        const limit = args[1];
        if (limit?.op === 'value' && typeof limit.args === 'bigint') max = BigInt.asUintN(64, limit.args);
        return { cost: multiplyByFactor(sz, 2 * STRING_TRAVERSAL), resultSize: range(0n, max) };
      }
      case 'join': {
        if (!t) return undefined;
        const listSize = size(t);
        const element = this.listElement(t);
        let sz = element ? multiply(listSize, size(element)) : ZERO;
        if (a0) {
          const separators = range(listSize.min > 0n ? listSize.min - 1n : 0n, listSize.max > 0n ? listSize.max - 1n : 0n);
          sz = add(sz, multiply(size(a0), separators));
        }
        return { cost: multiplyByFactor(sz, STRING_TRAVERSAL), resultSize: sz };
      }
      case 'find':
      case 'findAll': {
        if (!t || !a0) return undefined;
        const sz = size(t);
        const strCost = multiplyByFactor(add(sz, ONE), STRING_TRAVERSAL);
        return { cost: multiply(strCost, traversal(a0, REGEX_STRING_LENGTH)), resultSize: range(0n, sz.max) };
      }
      case 'quantity':
      case 'isQuantity':
        return a0 ? { cost: traversal(a0) } : undefined;
      default:
        return undefined;
    }
  }

  /** The items of a list-typed node, with their path when the list has one (listElementNode). */
  private listElement(list: SizedNode): SizedNode | undefined {
    if (list.type?.kind !== 'list' || !list.type.valueType) return undefined;
    return { path: list.path ? [...list.path, '@items'] : undefined, type: list.type.valueType };
  }

  /** has(), the comprehension macros and cel.bind, as cel-go expands them. */
  private macro(node: AstNode): Range | undefined {
    const name = functionName(node);
    const operands = Array.isArray(node.args) ? node.args : [];
    if (name === 'has' && node.op === 'call' && node.meta.macro) {
      const selection = (operands[1] as unknown[])[0];
      if (!this.isNode(selection) || selection.op !== '.') return undefined;
      return add(this.presenceTestCost, this.cost((selection.args as [AstNode])[0]));
    }
    if (node.op !== 'rcall') return undefined;
    const receiver = operands[1];
    const macroArgs = (operands[2] as unknown[] | undefined)?.filter(this.isNode) ?? [];
    if (name === 'bind' && node.meta.macro && macroArgs.length === 3) return this.bind(node, macroArgs as [AstNode, AstNode, AstNode]);
    if (!COMPREHENSION_MACROS.has(name) || !node.meta.alternate || !this.isNode(receiver)) return undefined;
    const [iterVar, ...body] = macroArgs;
    if (iterVar?.op !== 'id') return undefined;
    return this.fold(node, receiver, String(iterVar.args), () => this.loopCost(name, body));
  }

  /** costComprehension: range and init, then (condition + step) once per element of the range. */
  private fold(node: AstNode, iterRange: AstNode, iterVar: string, body: () => { init: Range; perElement: Range; result: Range }): Range {
    const rangeCost = this.cost(iterRange);
    const scope = this.iterRanges.get(iterVar) ?? [];
    this.iterRanges.set(iterVar, [...scope, iterRange]);
    const { init, perElement, result } = body();
    this.iterRanges.set(iterVar, scope);
    const count = this.sizeOf(this.sized(iterRange));
    this.computedSizes.set(node, count);
    return add(add(add(rangeCost, init), result), multiply(count, perElement));
  }

  /**
   * cel-go's expansions (parser/macro.go), accumulator `accu`, predicate p, transform t:
   * all: init true, condition @not_strictly_false(accu), step accu && p, result accu;
   * exists: init false, condition @not_strictly_false(!accu), step accu || p, result accu;
   * exists_one: init 0, condition true, step p ? accu + 1 : accu, result accu == 1;
   * map: init [], condition true, step accu + [t] (with a filter: p ? accu + [t] : accu), result accu;
   * filter: init [], condition true, step p ? accu + [x] : accu, result accu.
   */
  private loopCost(name: string, body: AstNode[]): { init: Range; perElement: Range; result: Range } {
    const costs = this.all(body);
    const ident = range(SELECT_AND_IDENT);
    const logical = (p: Range): Range => range(ident.min, addSat(ident.max, p.max));
    const appendCost = (t: Range): Range => add(add(ONE, ident), add(t, range(LIST_CREATE_BASE)));
    const emptyList = range(LIST_CREATE_BASE);
    const [p = ZERO, t = ZERO] = costs;
    switch (name) {
      case 'all':
        return { init: ZERO, perElement: add(add(ONE, ident), logical(p)), result: ident };
      case 'exists':
        return { init: ZERO, perElement: add(add(ONE, add(ONE, ident)), logical(p)), result: ident };
      case 'exists_one':
        // accu == 1 over two ints: a comparison of size 1.
        return { init: ZERO, perElement: add(p, union(add(ONE, ident), ident)), result: add(ONE, ident) };
      case 'map':
        if (costs.length === 1) return { init: emptyList, perElement: appendCost(p), result: ident };
        return { init: emptyList, perElement: add(p, union(appendCost(t), ident)), result: ident };
      default:
        return { init: emptyList, perElement: add(p, union(appendCost(ident), ident)), result: ident };
    }
  }

  /** cel.bind(v, init, e): a fold over an empty list with accumulator v = init and result e. */
  private bind(node: AstNode, [, init, exp]: [AstNode, AstNode, AstNode]): Range {
    const cost = add(add(range(LIST_CREATE_BASE), this.cost(init)), this.cost(exp));
    this.computedSizes.set(node, ZERO);
    return cost;
  }

  private comprehensionNode(node: AstNode): Range {
    const c = node.args as ComprehensionArgs;
    return add(add(this.cost(c.iterable), this.cost(c.init)), this.cost(c.step));
  }
}

/** `-1` and `-1.5` are constants to cel-go's parser. */
function isNegativeLiteral(node: AstNode, isNode: IsAstNode): boolean {
  if (node.op !== '-_' || !isNode(node.args)) return false;
  const v = node.args.args;
  return node.args.op === 'value' && (typeof v === 'bigint' || typeof v === 'number');
}

/** The largest and smallest result of replace (library/cost.go). */
export function replaceSize(sz: Range, toReplace: Range, replaceWith: Range): Range {
  let countMax: bigint;
  let retainedMax = 0n;
  if (toReplace.min === 0n) {
    countMax = sz.max < MAX_UINT64 ? sz.max + 1n : sz.max;
    retainedMax = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    countMax = 0n;
    retainedMax = sz.max;
  } else {
    countMax = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)));
  }
  let countMin: bigint;
  let retainedMin = 0n;
  if (toReplace.max === 0n) {
    countMin = sz.min < MAX_UINT64 ? sz.min + 1n : sz.min;
    retainedMin = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    countMin = 0n;
    retainedMin = sz.min;
  } else {
    countMin = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)));
  }
  return add(multiply(range(countMin, countMax), replaceWith), range(retainedMin, retainedMax));
}

/** The [min, max] cost of `root`, with sizes of the values it reads from `sizes`. */
export function estimateCost(root: AstNode, isNode: IsAstNode, sizes: SizeEstimator, options: EstimateOptions = {}): Range {
  return new Coster(isNode, sizes, range(options.presenceTestCost ?? 0n)).cost(root);
}
