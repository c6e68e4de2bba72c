/**
 * Runs every rule of a schema tree over a value: walks the value with the descriptors (following
 * references, lists and maps), evaluates each node's rules with `self` bound to the node's value and
 * `oldSelf` to the correlated old value (objects by field, maps by key, map-list items by their key
 * fields), and reports failures as field errors. Rules compile once per node, on first use.
 */
import { type FieldError, type FieldErrorType, jsonTypeOf } from '../api/index.js';
import { deref, type NodeCommon, type SchemaNode } from '../schema/index.js';
import { isObject } from '../validate/index.js';
import { CostBudget } from './budget.js';
import { type CompiledRule, compileRule } from './compile.js';
import { type CostLimits, DEFAULT_COST_LIMITS } from './cost.js';
import { CelCompileError, CelCostExceededError, CelEvaluationError } from './errors.js';
import { CelValueConverter } from './schema-values.js';

export interface RuleSetOptions {
  costLimits?: Partial<CostLimits>;
}

export interface ValidateOptions {
  /** Path of the value given (`spec`); errors are reported under it. */
  path?: string;
}

/**
 * The field error of a failed rule, as upstream's `fieldErrorForReason`: the rule's reason (Invalid
 * unless Forbidden, Required or Duplicate), the schema type of the value the rule sits on as the
 * value, the rule's message as the detail, and the rule itself.
 */
function ruleError(field: string, reason: string | undefined, value: unknown, message: string, rule: string, error?: Error): FieldError {
  const type: FieldErrorType =
    reason === 'FieldValueForbidden' || reason === 'FieldValueRequired' || reason === 'FieldValueDuplicate' ? reason : 'FieldValueInvalid';
  return { type, field, badValue: jsonTypeOf(value), detail: message, rule, ...(error ? { error } : {}) };
}

/** What is wrong with a rule, without repeating its text (the field error carries the rule). */
export function describeCompileError(e: CelCompileError): string {
  const at = e.position ? ` at line ${e.position.line}, column ${e.position.column}` : '';
  return `${e.summary}${at}`;
}

type Json = Readonly<Record<string, unknown>>;

const child = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

function withFieldPath(path: string, fieldPath: string | undefined): string {
  if (!fieldPath) return path;
  if (path === '') return fieldPath.replace(/^\./, '');
  return fieldPath.startsWith('.') || fieldPath.startsWith('[') ? `${path}${fieldPath}` : `${path}.${fieldPath}`;
}

/** The nodes a (possibly referencing) node stands for: the reference chain, then the concrete node. */
function chain(node: SchemaNode): SchemaNode[] {
  const out: SchemaNode[] = [node];
  let n = node;
  while (n.type === 'ref') {
    n = n.ref();
    out.push(n);
    if (out.length > 64) throw new Error('schema reference cycle');
  }
  return out;
}

/**
 * A string equal for two map-list items exactly when every key field has the same JSON (an absent
 * field apart from null): JSON text never contains a raw NUL, so joining on one is unambiguous.
 */
function keyTuple(item: Json, keys: readonly string[]): string {
  return keys.map((k) => (item[k] === undefined ? '' : JSON.stringify(item[k]))).join('\0');
}

/** The first old item of each key tuple: one lookup per new item instead of a scan of the old list. */
function firstByKeys(prior: readonly unknown[], keys: readonly string[]): Map<string, Json> {
  const first = new Map<string, Json>();
  for (const p of prior) {
    if (!isObject(p)) continue;
    const tuple = keyTuple(p, keys);
    if (!first.has(tuple)) first.set(tuple, p);
  }
  return first;
}

class Walk {
  readonly errors: FieldError[] = [];
  readonly converter = new CelValueConverter();
  readonly budget: CostBudget;
  stopped = false;

  constructor(
    private readonly set: RuleSet,
    limits: CostLimits,
  ) {
    this.budget = new CostBudget(limits);
  }

  visit(node: SchemaNode, value: unknown, old: unknown, path: string): void {
    if (this.stopped || value === undefined || value === null || !this.set.hasRules(node)) return;
    for (const holder of chain(node)) this.runRules(holder, node, value, old, path);
    const n = deref(node);
    if (n.type === 'object' && isObject(value)) {
      const prior = isObject(old) ? old : undefined;
      for (const f of n.fields) this.visit(f.schema, value[f.name], prior?.[f.name], child(path, f.name));
    } else if (n.type === 'map' && isObject(value)) {
      const prior = isObject(old) ? old : undefined;
      for (const [k, v] of Object.entries(value)) this.visit(n.values, v, prior?.[k], `${path}[${k}]`);
    } else if (n.type === 'list' && Array.isArray(value)) {
      const keys = n.listType === 'map' ? (n.listMapKeys ?? []) : undefined;
      // Only map-list items correlate with an old item; set and atomic list items have no oldSelf.
      const prior = keys && Array.isArray(old) ? firstByKeys(old, keys) : undefined;
      value.forEach((item: unknown, i) => {
        const before = keys && prior && isObject(item) ? prior.get(keyTuple(item, keys)) : undefined;
        this.visit(n.items, item, before, `${path}[${i}]`);
      });
    }
  }

  private runRules(holder: SchemaNode, self: SchemaNode, value: unknown, old: unknown, path: string): void {
    const compiledRules = this.set.rulesOf(holder, self);
    // A rule that does not compile (syntax, types, over the cost estimate) is a finding at the
    // field it sits on, not a crash: the other rules still run.
    for (const broken of this.set.brokenRulesOf(holder)) {
      this.errors.push(ruleError(path, undefined, value, `rule does not compile: ${describeCompileError(broken)}`, broken.rule, broken));
    }
    for (const compiled of compiledRules) {
      if (this.stopped) return;
      const rule = compiled.rule;
      if (compiled.isTransition && old === undefined && !rule.optionalOldSelf) continue;
      const inputs = old === undefined ? { self: value } : { self: value, oldSelf: old };
      const report = (message: string, error?: CelEvaluationError | CelCostExceededError): void => {
        this.errors.push(ruleError(withFieldPath(path, rule.fieldPath), rule.reason, value, message, rule.rule, error));
      };
      try {
        const ok = compiled.evaluate(inputs, { budget: this.budget, converter: this.converter });
        if (!ok) report(compiled.message(inputs, { budget: this.budget, converter: this.converter }));
      } catch (e) {
        if (e instanceof CelCostExceededError) {
          report(e.message, e);
          if (e.scope === 'object' || this.budget.exhausted) this.stopped = true;
        } else if (e instanceof CelEvaluationError) {
          report(e.message, e);
        } else {
          throw e;
        }
      }
    }
  }
}

/** Every rule of a schema tree, compiled lazily per node and run by `validate`. */
export class RuleSet {
  private readonly compiled = new Map<SchemaNode, CompiledRule[]>();
  private readonly broken = new Map<SchemaNode, CelCompileError[]>();
  private readonly withRules = new Map<SchemaNode, boolean>();
  private readonly limits: CostLimits;

  constructor(
    readonly root: SchemaNode,
    options: RuleSetOptions = {},
  ) {
    this.limits = { ...DEFAULT_COST_LIMITS, ...options.costLimits };
  }

  /**
   * The compiled rules that sit on `holder` (a node of the reference chain of `self`). Rules that
   * do not compile are left out; `brokenRulesOf` names them.
   */
  rulesOf(holder: NodeCommon & SchemaNode, self: SchemaNode): CompiledRule[] {
    let rules = this.compiled.get(holder);
    if (!rules) {
      const hasOld = (holder.rules ?? []).some((r) => /\boldSelf\b/.test(r.rule) || /\boldSelf\b/.test(r.messageExpression ?? ''));
      const broken: CelCompileError[] = [];
      rules = [];
      for (const r of holder.rules ?? []) {
        try {
          rules.push(compileRule(r, { self, oldSelf: hasOld, costLimits: this.limits }));
        } catch (e) {
          if (e instanceof CelCompileError) broken.push(e);
          else throw e;
        }
      }
      this.compiled.set(holder, rules);
      this.broken.set(holder, broken);
    }
    return rules;
  }

  /** The rules on `holder` that did not compile (known once `rulesOf` has compiled them). */
  brokenRulesOf(holder: SchemaNode): readonly CelCompileError[] {
    return this.broken.get(holder) ?? [];
  }

  /** Whether `node` or anything below it carries rules. */
  hasRules(node: SchemaNode): boolean {
    const known = this.withRules.get(node);
    if (known !== undefined) return known;
    const seen = new Set<SchemaNode>();
    const search = (n: SchemaNode): boolean => {
      if (seen.has(n)) return false;
      seen.add(n);
      if (n.rules?.length || this.withRules.get(n)) return true;
      switch (n.type) {
        case 'ref':
          return search(n.ref());
        case 'object':
          return n.fields.some((f) => search(f.schema));
        case 'map':
          return search(n.values);
        case 'list':
          return search(n.items);
        default:
          return false;
      }
    };
    const found = search(node);
    this.withRules.set(node, found);
    return found;
  }

  /** Compiles every rule of the tree now; returns the rules that do not compile. */
  check(): CelCompileError[] {
    return this.checkAt().map((p) => p.error);
  }

  /**
   * Compiles every rule of the tree now; returns the rules that do not compile with the path of
   * the schema node they sit on (`spec.items[*]`, `<root>` for the root), first found.
   */
  checkAt(): { path: string; error: CelCompileError }[] {
    const errors: { path: string; error: CelCompileError }[] = [];
    const seen = new Set<SchemaNode>();
    const visit = (node: SchemaNode, path: string): void => {
      if (seen.has(node)) return;
      seen.add(node);
      for (const holder of chain(node)) {
        for (const r of holder.rules ?? []) {
          try {
            compileRule(r, { self: node, oldSelf: /\boldSelf\b/.test(r.rule), costLimits: this.limits });
          } catch (e) {
            if (e instanceof CelCompileError) errors.push({ path: path || '<root>', error: e });
            else throw e;
          }
        }
      }
      const n = deref(node);
      if (n.type === 'object') n.fields.forEach((f) => visit(f.schema, child(path, f.name)));
      else if (n.type === 'map') visit(n.values, `${path}[*]`);
      else if (n.type === 'list') visit(n.items, `${path}[*]`);
    };
    visit(this.root, '');
    return errors;
  }

  /** Runs the rules over `value` (and `oldValue` for transition rules); returns the failures. */
  validate(value: unknown, oldValue?: unknown, options: ValidateOptions = {}): FieldError[] {
    const walk = new Walk(this, this.limits);
    walk.visit(this.root, value, oldValue, options.path ?? '');
    return walk.errors;
  }
}
