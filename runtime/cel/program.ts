/**
 * Compiling one expression: parse, rename the functions our libraries replace, reject invalid
 * literal regular expressions, type-check, and instrument every node to charge the cost meter.
 * The result evaluates its checked AST directly; nothing is parsed again.
 */
import { type Environment, EvaluationError, ParseError, TypeError as CheckError } from '@marcbachmann/cel-js';
import { allNodes, astNodeTest, type AstNode, type ComprehensionArgs, type IsAstNode, operandsOf } from './ast.js';
import { COST, type CostMeter, spend, traversalCost, withMeter } from './cost.js';
import { CelCompileError, CelCostExceededError, CelEvaluationError, positionOf } from './errors.js';
import { checkArithmeticResult } from './lib/conversions.js';
import { decodeBytesLiteral } from './lib/literals.js';
import { regexError } from '../regex/index.js';
import { INTERNAL_PREFIX, internalName } from './lib/register.js';
import { rewriteSyntax } from './rewrite-syntax.js';
import { celEquals, concatLists, semanticsOf } from './values.js';

export interface CompiledExpression {
  readonly text: string;
  /** The checked result type (`bool`, `string`, `list<int>`, ...). */
  readonly type: string;
  /** Free identifiers the expression reads (`self`, `oldSelf`, ...). */
  readonly identifiers: ReadonlySet<string>;
  readonly root: AstNode;
  readonly isNode: IsAstNode;
  /** Evaluates with CEL values bound to the declared variables, charging `meter`. */
  run(activation: Readonly<Record<string, unknown>>, meter: CostMeter): unknown;
}

/** Library messages name our internal function names; users wrote the plain ones. */
const userFacing = (message: string): string => message.split(INTERNAL_PREFIX).join('');

interface LibraryError {
  readonly summary?: string;
  readonly range?: { start: number; end: number };
  readonly message: string;
}

/** `rewritten`: the library saw a rewritten source, whose offsets are not the rule's. */
function compileError(text: string, e: LibraryError, rewritten = false): CelCompileError {
  const at = e.range && !rewritten ? positionOf(text, e.range.start) : undefined;
  return new CelCompileError(text, userFacing(e.summary ?? e.message), at);
}

const ARITHMETIC = new Set(['+', '-', '*', '/', '%', '-_']);

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

/**
 * Functions whose library charges their whole cost itself (Kubernetes' library CallCost and
 * cel-go's sized overloads); every other call costs 1.
 */
const SELF_COSTED_FUNCTIONS = new Set([
  'check',
  'isSorted',
  'sum',
  'max',
  'min',
  'indexOf',
  'lastIndexOf',
  'url',
  'lowerAscii',
  'upperAscii',
  'substring',
  'trim',
  'replace',
  'split',
  'join',
  'find',
  'findAll',
  'quantity',
  'isQuantity',
  'matches',
  'quote',
  'startsWith',
  'endsWith',
  'contains',
]);

/** Namespaces of functions (`strings.quote`): cel-go calls them as global functions, without an identifier. */
const NAMESPACES = new Set(['strings', 'optional', 'math', 'sets', 'base64']);
/** Conversions between strings and bytes traverse their argument; other conversions cost 1. */
const CONVERSIONS = new Set(['bytes', 'string']);

/** cel-go's actualSize: the size of strings, bytes, lists and maps, 1 for anything else. */
function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (v instanceof Map) return v.size;
  return 1;
}

const isText = (v: unknown): boolean => typeof v === 'string' || v instanceof Uint8Array;

const functionName = (node: AstNode): string => {
  const name = Array.isArray(node.args) ? String(node.args[0]) : '';
  return name.startsWith(INTERNAL_PREFIX) ? name.slice(INTERNAL_PREFIX.length) : name;
};

/**
 * Cost a node adds on top of its operands when it is evaluated, as cel-go's runtime charges it:
 * constants nothing, identifiers and selections 1, literals their base cost, `&&`, `||` and `?:`
 * nothing, calls 1 unless their library charges. Macros are charged as cel-go's expansions
 * (parser/macro.go) run: `exists_one`'s result `accu == 1` 2, `cel.bind` an empty list 10, the
 * accumulator `accu` 1, `accu + 1` 2 and `accu + [x]` 12; `all` and `exists` per element their
 * loop condition and `accu &&`/`accu ||` (see quantifierSteps).
 */
function baseCost(node: AstNode): number {
  switch (node.op) {
    case 'value':
    case 'comprehension':
    case '&&':
    case '||':
    case '?:':
      return 0;
    case 'accuValue':
      return COST.operation;
    case 'accuInc':
      return 2 * COST.operation;
    case 'accuPush':
      return 2 * COST.operation + COST.listLiteral;
    case 'list':
      return COST.listLiteral;
    case 'map':
      return COST.mapLiteral;
    case '-_':
      // `-1` is a constant to cel-go's parser.
      return (node.args as AstNode | undefined)?.op === 'value' ? 0 : COST.operation;
    case 'call':
    case 'rcall': {
      const name = functionName(node);
      if (node.meta.macro && name === 'bind') return COST.listLiteral;
      if (node.op === 'call' && CONVERSIONS.has(name)) return 0;
      if (node.meta.alternate && name === 'exists_one') return 2 * COST.operation;
      return SELF_COSTED_FUNCTIONS.has(name) ? 0 : COST.operation;
    }
    default:
      return COMPARISONS.has(node.op) || node.op === 'in' || node.op === '+' ? 0 : COST.operation;
  }
}

/**
 * What `all` and `exists` charge per element beyond the predicate: the loop condition
 * (`@not_strictly_false(accu)`: 2, with `!accu`: 3) and the accumulator of `accu && p` (1).
 */
function quantifierSteps(nodes: AstNode[]): Map<AstNode, number> {
  const steps = new Map<AstNode, number>();
  for (const node of nodes) {
    const alternate = node.meta.alternate;
    if (node.op !== 'rcall' || alternate?.op !== 'comprehension') continue;
    const name = functionName(node);
    const step = (alternate.args as ComprehensionArgs).step;
    if (name === 'all') steps.set(step, 3 * COST.operation);
    if (name === 'exists') steps.set(step, 4 * COST.operation);
  }
  return steps;
}

type Slot = { value: unknown };
type SizedCost = (result: unknown) => number;
/** Replaces a node's result after the fact; see listSemantics. */
type ResultOverride = (result: unknown) => unknown;

const isMarkedList = (v: unknown): v is unknown[] => Array.isArray(v) && semanticsOf(v) !== undefined;

/**
 * Set lists and map lists compare without order and concatenate by union or merge. Their CEL type
 * is a plain list, so the library's list operators run; when an operand is such a list (marked by
 * the value conversion), the node's result is recomputed from the operands' recorded values.
 */
function listSemantics(node: AstNode, isNode: IsAstNode, slotFor: (n: AstNode) => Slot): ResultOverride | undefined {
  if (node.op !== '==' && node.op !== '!=' && node.op !== '+') return undefined;
  const operands = operandsOf(node, isNode);
  if (operands.length !== 2) return undefined;
  const [l, r] = operands.map(slotFor) as [Slot, Slot];
  return (result) => {
    const a = l.value;
    const b = r.value;
    if (!isMarkedList(a) && !isMarkedList(b)) return result;
    if (node.op === '+') return Array.isArray(a) && Array.isArray(b) ? concatLists(a, b) : result;
    const equal = celEquals(a, b);
    return node.op === '==' ? equal : !equal;
  };
}

/**
 * Where the library departs from cel-go on literal values: `in` compares numbers across int, uint
 * and double (`dyn(3u) in [3]` holds), and a map literal with a repeated or null key is an error.
 */
function literalSemantics(node: AstNode, isNode: IsAstNode, slotFor: (n: AstNode) => Slot): ResultOverride | undefined {
  if (node.op === 'in') {
    const operands = operandsOf(node, isNode);
    if (operands.length !== 2) return undefined;
    const [l, r] = operands.map(slotFor) as [Slot, Slot];
    return (result) => (result === false && Array.isArray(r.value) ? r.value.some((x) => celEquals(l.value, x)) : result);
  }
  if (node.op === 'map' && Array.isArray(node.args)) {
    const entries = node.args.length;
    return (result) => {
      // The library builds a Map, or a plain object when every key is a string.
      if (result instanceof Map && result.has(null)) throw new EvaluationError('unsupported key type null in a map literal');
      const size =
        result instanceof Map ? result.size : typeof result === 'object' && result !== null ? Object.keys(result).length : entries;
      if (size < entries) throw new EvaluationError('repeated key in a map literal');
      return result;
    };
  }
  return undefined;
}

/** For operations whose work grows with their operands, their whole cost from the operands' last values. */
function sizedCost(node: AstNode, isNode: IsAstNode, slotFor: (n: AstNode) => Slot): SizedCost | undefined {
  const operands = operandsOf(node, isNode);
  if (COMPARISONS.has(node.op) && operands.length === 2) {
    const [l, r] = operands.map(slotFor) as [Slot, Slot];
    const equality = node.op === '==' || node.op === '!=';
    return () => {
      const a = l.value;
      const b = r.value;
      if (!equality && !(isText(a) && isText(b))) return COST.operation;
      return traversalCost(Math.min(sizeOf(a), sizeOf(b)));
    };
  }
  if (node.op === 'in' && operands.length === 2) {
    const r = slotFor(operands[1] as AstNode);
    return () => (Array.isArray(r.value) ? r.value.length : COST.operation);
  }
  if (node.op === '+') return (result) => (isText(result) ? traversalCost(sizeOf(result)) : COST.operation);
  if (node.op === 'call' && CONVERSIONS.has(functionName(node)) && operands.length === 1) {
    const from = slotFor(operands[0] as AstNode);
    const textual = functionName(node) === 'bytes' ? (v: unknown) => typeof v === 'string' : (v: unknown) => v instanceof Uint8Array;
    return () => (textual(from.value) ? traversalCost(sizeOf(from.value)) : COST.operation);
  }
  if (node.op === 'rcall' && operands.length === 2) {
    const name = functionName(node);
    const [receiver, argument] = operands.map(slotFor) as [Slot, Slot];
    if (name === 'startsWith' || name === 'endsWith') return () => traversalCost(sizeOf(receiver.value));
    if (name === 'contains') return () => traversalCost(sizeOf(receiver.value)) * traversalCost(sizeOf(argument.value));
  }
  return undefined;
}

/** Replaces the node's evaluate slot with one that runs it as before and then charges its cost. */
function meterNode(
  node: AstNode,
  cost: number,
  sized: SizedCost | undefined,
  slot: Slot | undefined,
  override: ResultOverride | undefined,
): void {
  // The library does not range-check int64, timestamp and duration arithmetic.
  const checked = ARITHMETIC.has(node.op);
  // The meta object is stable; the checker only adds to it (alternates for constants, empty literals).
  const meta = node.meta;
  node.evaluate = (evaluator, ast, context) => {
    let result = meta.alternate
      ? meta.alternate.evaluate(evaluator, meta.alternate, context)
      : meta.macro
        ? meta.macro.evaluate(evaluator, meta.macro, context)
        : meta.evaluate(evaluator, ast, context);
    if (override) result = override(result);
    if (checked) checkArithmeticResult(result);
    if (slot) slot.value = result;
    spend(sized ? cost + sized(result) : cost);
    return result;
  };
}

function instrument(text: string, nodes: AstNode[], isNode: IsAstNode): Set<string> {
  const identifiers = new Set<string>();
  const slots = new Map<AstNode, Slot>();
  const slotFor = (n: AstNode): Slot => {
    let s = slots.get(n);
    if (!s) slots.set(n, (s = { value: undefined }));
    return s;
  };
  for (const node of nodes) {
    if (node.op === 'value' && node.args instanceof Uint8Array) {
      node.args = decodeBytesLiteral(text.slice(node.start, node.end)) ?? node.args;
    }
    if (node.op === 'id' && typeof node.args === 'string') identifiers.add(node.args);
    if ((node.op === 'call' || node.op === 'rcall') && Array.isArray(node.args) && typeof node.args[0] === 'string') {
      node.args[0] = internalName(node.args[0]);
      rejectInvalidPattern(text, node, isNode);
    }
    if (node.op === 'map') rejectConstantKeys(text, node, isNode);
  }
  const sized = new Map<AstNode, SizedCost | undefined>();
  const overrides = new Map<AstNode, ResultOverride | undefined>();
  for (const node of nodes) {
    sized.set(node, sizedCost(node, isNode, slotFor));
    overrides.set(node, listSemantics(node, isNode, slotFor) ?? literalSemantics(node, isNode, slotFor));
  }
  const fixedCosts = quantifierSteps(nodes);
  for (const node of nodes) {
    const receiver = node.op === 'rcall' && Array.isArray(node.args) ? node.args[1] : undefined;
    if (isNode(receiver) && receiver.op === 'id' && NAMESPACES.has(String(receiver.args))) fixedCosts.set(receiver, 0);
  }
  for (const node of nodes) {
    const cost = fixedCosts.get(node) ?? baseCost(node);
    const s = sized.get(node);
    const slot = slots.get(node);
    const override = overrides.get(node);
    if (cost === 0 && !s && !slot && !override && !ARITHMETIC.has(node.op)) continue;
    meterNode(node, cost, s, slot, override);
  }
  return identifiers;
}

/** Constant map literals are folded before evaluation: their repeated or null keys fail here. */
function rejectConstantKeys(text: string, node: AstNode, isNode: IsAstNode): void {
  const keys = (node.args as unknown[]).flatMap((e) => (Array.isArray(e) && isNode(e[0]) && e[0].op === 'value' ? [e[0]] : []));
  keys.forEach((k, i) => {
    const problem =
      k.args === null
        ? 'unsupported key type null in a map literal'
        : keys.slice(0, i).some((other) => celEquals(other.args, k.args))
          ? 'repeated key in a map literal'
          : undefined;
    if (problem) throw new CelCompileError(text, problem, positionOf(text, k.start));
  });
}

const MATCHES = `${INTERNAL_PREFIX}matches`;
const REGEX_FUNCTIONS = new Set([MATCHES, 'find', 'findAll']);

/**
 * A literal pattern that RE2 refuses fails the compilation, not the first evaluation. cel-go's
 * literal validator says only "invalid matches argument"; find and findAll fail when the program is
 * planned, with Go's regexp error.
 */
function rejectInvalidPattern(text: string, node: AstNode, isNode: IsAstNode): void {
  const args = node.args as unknown[];
  const name = String(args[0]);
  if (!REGEX_FUNCTIONS.has(name)) return;
  const operands = operandsOf(node, isNode);
  const pattern = operands[1];
  if (pattern?.op !== 'value' || typeof pattern.args !== 'string') return;
  const problem = regexError(pattern.args);
  if (problem === undefined) return;
  const at = positionOf(text, pattern.start);
  throw name === MATCHES
    ? new CelCompileError(text, 'invalid matches argument', at)
    : new CelCompileError(text, problem, at, undefined, 'program');
}

function evaluationError(text: string, e: unknown): Error {
  if (e instanceof CelCostExceededError || e instanceof CelEvaluationError) return e;
  if (e instanceof EvaluationError) {
    return new CelEvaluationError(text, userFacing(e.summary), e.range ? positionOf(text, e.range.start) : undefined);
  }
  return new CelEvaluationError(text, userFacing(e instanceof Error ? e.message : String(e)));
}

/**
 * The library's has() checks only the variable it starts from, so `has(self.typo)` would compile and
 * always be false. Selections starting at a declared variable are type-checked here, as cel-go does.
 */
function checkHasArguments(env: Environment, text: string, root: AstNode, isNode: IsAstNode): void {
  for (const node of allNodes(root, isNode)) {
    if (node.op !== 'call' || !node.meta.macro || !Array.isArray(node.args) || node.args[0] !== 'has') continue;
    const arg = (node.args[1] as unknown[])[0];
    if (!isNode(arg) || arg.op !== '.') continue;
    let base: AstNode = arg;
    while (base.op === '.' && Array.isArray(base.args) && isNode(base.args[0])) base = base.args[0];
    if (base.op !== 'id' || typeof base.args !== 'string' || !env.hasVariable(base.args)) continue;
    const checked = env.check(text.slice(arg.start, arg.end));
    const problem = checked.valid ? undefined : checked.error;
    if (problem) {
      throw new CelCompileError(text, userFacing(problem.summary), positionOf(text, arg.start + (problem.range?.start ?? 0)));
    }
  }
}

/**
 * The library's has() macro accepts only a selection starting at an identifier (`has(self.a.b)`),
 * not one from any expression (`has(self[0].matches)`, used by real CRDs), and its macro cannot be
 * replaced (a second `has(ast)` overload overlaps). Such a has(E.f) is rewritten in the source to
 * the equivalent `(E).?f.hasValue()` (optional selection: absent field or key gives none), one at a
 * time from the last, re-parsing in between. Undefined when there is nothing to rewrite.
 */
function rewriteHasOnExpressions(env: Environment, text: string, selections: string[] = []): string | undefined {
  let source = text;
  for (let round = 0; round < 64; round++) {
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = env.parse(source);
    } catch {
      return round === 0 ? undefined : source;
    }
    const root = parsed.ast as unknown as AstNode;
    const isNode = astNodeTest(root);
    let target: { call: AstNode; base: AstNode; field: string } | undefined;
    for (const node of allNodes(root, isNode)) {
      if (node.op !== 'call' || !Array.isArray(node.args) || node.args[0] !== 'has') continue;
      const args = node.args[1] as unknown[];
      const arg = args?.length === 1 ? args[0] : undefined;
      if (!isNode(arg) || arg.op !== '.' || !Array.isArray(arg.args) || typeof arg.args[1] !== 'string') continue;
      let chainRoot: AstNode = arg;
      while ((chainRoot.op === '.' || chainRoot.op === '.?') && Array.isArray(chainRoot.args) && isNode(chainRoot.args[0])) {
        chainRoot = chainRoot.args[0];
      }
      if (chainRoot.op === 'id') continue;
      const base = arg.args[0];
      if (!isNode(base)) continue;
      if (!target || node.start > target.call.start) target = { call: node, base, field: arg.args[1] };
    }
    if (!target) return round === 0 ? undefined : source;
    const { call, base, field } = target;
    selections.push(`(${source.slice(base.start, base.end)}).${field}`);
    source = `${source.slice(0, call.start)}(${source.slice(base.start, base.end)}).?${field}.hasValue()${source.slice(call.end)}`;
  }
  return source;
}

/** Compiles `text` in `env` (which declares the variables); throws CelCompileError. */
export function compileExpression(env: Environment, text: string): CompiledExpression {
  let parsed: ReturnType<Environment['parse']>;
  // Node positions below are offsets in `source`; errors name the rule as written.
  const selections: string[] = [];
  const literals = rewriteSyntax(text) ?? text;
  const source = rewriteHasOnExpressions(env, literals, selections) ?? literals;
  const rewritten = source !== text;
  try {
    parsed = env.parse(source);
  } catch (e) {
    if (e instanceof ParseError) throw compileError(text, e, rewritten);
    throw e;
  }
  const root = parsed.ast as unknown as AstNode;
  const isNode = astNodeTest(root);
  const identifiers = instrument(source, allNodes(root, isNode), isNode);
  const checked = parsed.check();
  if (!checked.valid || checked.type === undefined) {
    const e = checked.error;
    if (e instanceof ParseError || e instanceof CheckError) throw compileError(text, e, rewritten);
    const other: unknown = e;
    throw new CelCompileError(text, other instanceof Error ? other.message : 'type check failed');
  }
  checkHasArguments(env, source, root, isNode);
  // An optional selection does not check the field of a typed object: the rewritten has()
  // arguments are checked as plain selections (those using comprehension variables cannot be).
  for (const selection of selections) {
    const result = env.check(selection);
    const summary = result.valid ? undefined : userFacing(result.error?.summary ?? result.error?.message ?? 'type check failed');
    if (summary !== undefined && !/unknown variable/i.test(summary)) throw new CelCompileError(text, summary);
  }
  const evaluate = parsed;
  return {
    text,
    type: checked.type,
    identifiers,
    root,
    isNode,
    run(activation, meter) {
      try {
        return withMeter(meter, () => evaluate(activation));
      } catch (e) {
        throw evaluationError(text, e);
      }
    },
  };
}
