/**
 * The parts of @marcbachmann/cel-js's AST this module relies on beyond its typed surface (`op`,
 * `args`, positions): `meta` (the node's evaluate function, macro expansion or alternate node),
 * the per-node `evaluate` slot the evaluator dispatches through, and `checkedType` set by the type
 * checker. The dependency is pinned to an exact version for that reason (see docs/decisions.md).
 */

export type EvaluateFn = (evaluator: unknown, node: AstNode, context: unknown) => unknown;

export interface CheckedType {
  readonly name: string;
  readonly kind: string;
  readonly valueType?: CheckedType;
  readonly keyType?: CheckedType;
}

export interface MacroMeta {
  evaluate(evaluator: unknown, macro: MacroMeta, context: unknown): unknown;
  readonly [key: string]: unknown;
}

export interface AstMeta {
  readonly evaluate: EvaluateFn;
  readonly alternate?: AstNode;
  readonly macro?: MacroMeta;
}

export interface AstNode {
  readonly op: string;
  args: unknown;
  readonly pos: number;
  readonly start: number;
  readonly end: number;
  readonly meta: AstMeta;
  evaluate: EvaluateFn;
  readonly checkedType?: CheckedType;
}

/** Comprehension arguments, as the macros expand them. */
export interface ComprehensionArgs {
  readonly iterable: AstNode;
  readonly init: AstNode;
  readonly step: AstNode;
  readonly iterVarName: string;
  readonly kind?: string;
}

export type IsAstNode = (v: unknown) => v is AstNode;

/** A test for "is an AST node of this parse", from the parse result's root. */
export function astNodeTest(root: unknown): IsAstNode {
  const ctor = (root as { constructor: unknown }).constructor;
  return (v: unknown): v is AstNode => typeof v === 'object' && v !== null && v.constructor === ctor;
}

function isPlainContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  if (Array.isArray(v)) return true;
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Every node reachable from `root`: operands, macro expansions and their parts, each once. */
export function allNodes(root: AstNode, isNode: IsAstNode): AstNode[] {
  const seen = new Set<unknown>();
  const out: AstNode[] = [];
  const visit = (v: unknown): void => {
    if (seen.has(v)) return;
    if (isNode(v)) {
      seen.add(v);
      out.push(v);
      visit(v.args);
      if (v.meta.alternate) visit(v.meta.alternate);
      if (v.meta.macro) visit(v.meta.macro);
      return;
    }
    if (!isPlainContainer(v)) return;
    seen.add(v);
    for (const x of Array.isArray(v) ? v : Object.values(v)) visit(x);
  };
  visit(root);
  return out;
}

/** The direct operands of a node as the evaluator runs them (macro nodes by their expansion). */
export function operandsOf(node: AstNode, isNode: IsAstNode): AstNode[] {
  const a = node.args;
  switch (node.op) {
    case 'value':
    case 'id':
    case 'accuValue':
    case 'accuInc':
      return [];
    case 'call':
      return Array.isArray(a) && Array.isArray(a[1]) ? a[1].filter(isNode) : [];
    case 'rcall':
      return Array.isArray(a) && Array.isArray(a[2]) ? [a[1], ...a[2]].filter(isNode) : [];
    case 'map':
      return Array.isArray(a) ? a.flat().filter(isNode) : [];
    case 'comprehension': {
      const c = a as ComprehensionArgs;
      return [c.iterable, c.init, c.step];
    }
    default:
      if (isNode(a)) return [a];
      return Array.isArray(a) ? a.filter(isNode) : [];
  }
}
