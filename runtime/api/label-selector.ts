import { aggregateFieldErrors, type FieldError, fieldInvalid, fieldNotSupported } from './field-errors.js';
import { isQualifiedName, isValidLabelValue } from './names.js';
import { SelectorParseError } from './selector-error.js';

// The label selector query language of the real system (k8s.io/apimachinery/pkg/labels):
//   <selector>    ::= <requirement> | <requirement> "," <selector>
//   <requirement> ::= ["!"] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
// A bare KEY means "exists", "!KEY" "does not exist"; "in"/"notin" are keywords only where an
// operator is expected, so they are valid keys and values.

/** Operators as the real system names them (`gt`/`lt` are written `>`/`<`). */
export type LabelSelectorOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values: readonly string[];
}

/** The structured selector of API objects (`spec.selector`), shaped like meta.svc.io/v1 LabelSelector. */
export interface LabelSelectorObject {
  matchLabels?: Readonly<Record<string, string>> | undefined;
  matchExpressions?: readonly LabelSelectorRequirementObject[] | undefined;
}

export interface LabelSelectorRequirementObject {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | (string & {});
  values?: readonly string[] | undefined;
}

/** Labels to match: an object's `metadata.labels` (absent means no labels). */
export type Labels = Readonly<Record<string, string>> | ReadonlyMap<string, string> | undefined;

const OPERATOR_TEXT: Record<LabelSelectorOperator, string> = {
  in: ' in ',
  notin: ' notin ',
  '=': '=',
  '==': '==',
  '!=': '!=',
  exists: '',
  '!': '',
  gt: '>',
  lt: '<',
};

/** A parsed label selector: an AND of requirements, sorted by key. */
export class LabelSelector {
  readonly #requirements: readonly LabelRequirement[];
  /** True only for the selector of a null structured selector, which matches no object. */
  readonly matchesNothing: boolean;

  private constructor(requirements: readonly LabelRequirement[], matchesNothing: boolean) {
    // Sorted by key (stable) so that equivalent selectors print the same.
    this.#requirements = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.matchesNothing = matchesNothing;
  }

  /** The requirements, sorted by key. */
  requirements(): readonly LabelRequirement[] {
    return this.#requirements;
  }

  /** Matches every object. */
  static everything(): LabelSelector {
    return new LabelSelector([], false);
  }

  /** Matches no object (a null structured selector). */
  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  /** Builds from requirements checked with validateLabelRequirement; throws SelectorParseError. */
  static of(requirements: readonly LabelRequirement[]): LabelSelector {
    for (const r of requirements) {
      const errors = validateLabelRequirement(r);
      if (errors.length > 0) throw new SelectorParseError('label', selectorText(requirements), aggregateFieldErrors(errors));
    }
    return new LabelSelector(requirements, false);
  }

  /** True when the selector does not restrict anything. */
  isEmpty(): boolean {
    return !this.matchesNothing && this.#requirements.length === 0;
  }

  matches(labels: Labels): boolean {
    if (this.matchesNothing) return false;
    const lookup = toLookup(labels);
    return this.#requirements.every((r) => requirementMatches(r, lookup));
  }

  /** The value a selector pins `key` to (`key=v`, `key==v` or `key in (v)`), if any. */
  requiresExactMatch(key: string): string | undefined {
    const r = this.#requirements.find((x) => x.key === key);
    if (!r || (r.operator !== '=' && r.operator !== '==' && r.operator !== 'in') || r.values.length !== 1) return undefined;
    return r.values[0];
  }

  /** The query form (`app=web,tier in (a,b),!legacy`); parses back to an equal selector. */
  toString(): string {
    return selectorText(this.#requirements);
  }
}

function selectorText(requirements: readonly LabelRequirement[]): string {
  return requirements.map(requirementText).join(',');
}

function requirementText(r: LabelRequirement): string {
  const head = (r.operator === '!' ? '!' : '') + r.key + OPERATOR_TEXT[r.operator];
  if (r.operator === 'exists' || r.operator === '!') return head;
  const values = [...r.values].sort().join(',');
  return r.operator === 'in' || r.operator === 'notin' ? `${head}(${values})` : head + values;
}

function toLookup(labels: Labels): (key: string) => string | undefined {
  if (labels === undefined) return () => undefined;
  if (labels instanceof Map) return (key) => labels.get(key);
  const record = labels as Readonly<Record<string, string>>;
  return (key) => (Object.hasOwn(record, key) ? record[key] : undefined);
}

const INT64 = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64.
function parseInt64(s: string): bigint | undefined {
  if (!INT64.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

function requirementMatches(r: LabelRequirement, lookup: (key: string) => string | undefined): boolean {
  const value = lookup(r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt': {
      const actual = value === undefined ? undefined : parseInt64(value);
      const bound = r.values.length === 1 ? parseInt64(r.values[0] ?? '') : undefined;
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

const ALL_OPERATORS: readonly LabelSelectorOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];

/** The real system's NewRequirement checks, as field errors (`key`, `values[0][app]`, ...). */
export function validateLabelRequirement(r: LabelRequirement): FieldError[] {
  const errors: FieldError[] = [];
  const keyErrors = isQualifiedName(r.key);
  if (keyErrors.length > 0) errors.push(fieldInvalid('key', r.key, keyErrors.join('; ')));
  const values = r.values;
  switch (r.operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errors.push(fieldInvalid('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errors.push(fieldInvalid('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errors.push(fieldInvalid('values', values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errors.push(fieldInvalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined)
          errors.push(fieldInvalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errors.push(fieldNotSupported('operator', r.operator, ALL_OPERATORS));
  }
  values.forEach((v, i) => {
    const valueErrors = isValidLabelValue(v);
    if (valueErrors.length > 0) errors.push(fieldInvalid(`values[${i}][${r.key}]`, v, valueErrors.join('; ')));
  });
  return errors;
}

/**
 * Converts a structured selector as the real system does: null/undefined matches nothing, an
 * empty one everything; matchLabels become `=` requirements. Throws SelectorParseError.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | null | undefined): LabelSelector {
  if (selector === null || selector === undefined) return LabelSelector.nothing();
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) requirements.push({ key, operator: '=', values: [value] });
  for (const expr of selector.matchExpressions ?? []) {
    const operator = OBJECT_OPERATORS[expr.operator];
    if (operator === undefined) {
      throw new SelectorParseError(
        'label',
        JSON.stringify(selector),
        `"${expr.operator}" is not a valid label selector operator (valid: In, NotIn, Exists, DoesNotExist)`,
      );
    }
    requirements.push({ key: expr.key, operator, values: [...(expr.values ?? [])] });
  }
  for (const r of requirements) {
    const errors = validateLabelRequirement(r);
    if (errors.length > 0) throw new SelectorParseError('label', JSON.stringify(selector), aggregateFieldErrors(errors));
  }
  return LabelSelector.of(requirements);
}

const OBJECT_OPERATORS: Readonly<Record<string, LabelSelectorOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/** A selector that matches exactly these labels (every pair as `key=value`). */
export function labelSelectorFromSet(labels: Readonly<Record<string, string>>): LabelSelector {
  return LabelSelector.of(Object.entries(labels).map(([key, value]) => ({ key, operator: '=', values: [value] })));
}

// ---- lexer -------------------------------------------------------------------------------------

type TokenKind = 'end' | 'identifier' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<';

interface Token {
  kind: TokenKind;
  text: string;
  position: number;
}

const SPECIAL_TOKENS = new Set(['(', ')', ',', '!', '=', '==', '!=', '>', '<']);
const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < input.length && isWhitespace(input.charAt(pos))) pos++;
    const start = pos;
    if (pos >= input.length) {
      tokens.push({ kind: 'end', text: '', position: start });
      return tokens;
    }
    if (isSpecial(input.charAt(pos))) {
      // The longest run of special characters that is still a token: "!=" over "!", "==" over "=".
      let text = input.charAt(pos++);
      while (pos < input.length && SPECIAL_TOKENS.has(text + input.charAt(pos))) text += input.charAt(pos++);
      tokens.push({ kind: text as TokenKind, text, position: start });
    } else {
      while (pos < input.length && !isSpecial(input.charAt(pos)) && !isWhitespace(input.charAt(pos))) pos++;
      const text = input.slice(start, pos);
      tokens.push({ kind: text === 'in' || text === 'notin' ? text : 'identifier', text, position: start });
    }
  }
}

// ---- parser ------------------------------------------------------------------------------------

class Parser {
  private index = 0;
  private readonly tokens: Token[];

  constructor(private readonly input: string) {
    this.tokens = tokenize(input);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const next = this.peek(true);
      if (next.kind === 'end') return requirements;
      if (next.kind !== 'identifier' && next.kind !== '!')
        this.fail(next, `found '${next.text}', expected: !, identifier, or 'end of string'`);
      requirements.push(this.requirement());
      const after = this.take(true);
      if (after.kind === 'end') return requirements;
      if (after.kind !== ',') this.fail(after, `found '${after.text}', expected: ',' or 'end of string'`);
      const following = this.peek(true);
      if (following.kind !== 'identifier' && following.kind !== '!')
        this.fail(following, `found '${following.text}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    const start = this.peek(true);
    let negated = false;
    let keyToken = this.take(true);
    if (keyToken.kind === '!') {
      negated = true;
      keyToken = this.take(true);
    }
    if (keyToken.kind !== 'identifier') this.fail(keyToken, `found '${keyToken.text}', expected: identifier`);
    const key = keyToken.text;
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0)
      this.fail(keyToken, `unable to parse requirement: ${aggregateFieldErrors([fieldInvalid('key', key, keyErrors.join('; '))])}`);

    const next = this.peek(true);
    if (negated) return this.checked({ key, operator: '!', values: [] }, start);
    if (next.kind === 'end' || next.kind === ',') return this.checked({ key, operator: 'exists', values: [] }, start);

    const opToken = this.take(false);
    const operator = BINARY_OPERATORS.get(opToken.kind);
    if (operator === undefined) this.fail(opToken, `found '${opToken.text}', expected: in, notin, =, ==, !=, gt, lt`);
    const values = operator === 'in' || operator === 'notin' ? this.valueSet() : this.exactValue();
    return this.checked({ key, operator, values }, start);
  }

  private valueSet(): string[] {
    const open = this.take(true);
    if (open.kind !== '(') this.fail(open, `found '${open.text}', expected: '('`);
    const first = this.peek(true);
    if (first.kind === ')') {
      this.take(true);
      return [''];
    }
    if (first.kind !== 'identifier' && first.kind !== ',') this.fail(first, `found '${first.text}', expected: ',', ')' or identifier`);
    // An empty entry (`(a,)`, `(,a)`, `(a,,b)`) is the empty value.
    const values = new Set<string>();
    for (;;) {
      const token = this.take(true);
      if (token.kind === 'identifier') {
        values.add(token.text);
        const after = this.peek(true);
        if (after.kind === ')') break;
        if (after.kind !== ',') this.fail(after, `found '${after.text}', expected: ',' or ')'`);
      } else if (token.kind === ',') {
        if (values.size === 0) values.add('');
        const after = this.peek(true);
        if (after.kind === ')') {
          values.add('');
          break;
        }
        if (after.kind === ',') values.add('');
      } else {
        this.fail(token, `found '${token.text}', expected: ',', or identifier`);
      }
    }
    this.take(true); // the ')'
    return [...values].sort();
  }

  private exactValue(): string[] {
    const next = this.peek(true);
    if (next.kind === 'end' || next.kind === ',') return [''];
    const token = this.take(true);
    if (token.kind !== 'identifier') this.fail(token, `found '${token.text}', expected: identifier`);
    return [token.text];
  }

  private checked(r: LabelRequirement, at: Token): LabelRequirement {
    const errors = validateLabelRequirement(r);
    if (errors.length > 0) this.fail(at, `unable to parse requirement: ${aggregateFieldErrors(errors)}`);
    return r;
  }

  // Where a value may appear, the keywords `in` and `notin` are plain identifiers.
  private peek(asValue: boolean): Token {
    return this.asValue(this.tokens[Math.min(this.index, this.tokens.length - 1)], asValue);
  }

  private take(asValue: boolean): Token {
    const token = this.peek(asValue);
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  private asValue(token: Token | undefined, asValue: boolean): Token {
    const t = token ?? { kind: 'end', text: '', position: this.input.length };
    return asValue && (t.kind === 'in' || t.kind === 'notin') ? { ...t, kind: 'identifier' } : t;
  }

  private fail(at: Token, detail: string): never {
    throw new SelectorParseError('label', this.input, detail, at.position);
  }
}

const BINARY_OPERATORS = new Map<TokenKind, LabelSelectorOperator>([
  ['in', 'in'],
  ['notin', 'notin'],
  ['=', '='],
  ['==', '=='],
  ['!=', '!='],
  ['>', 'gt'],
  ['<', 'lt'],
]);

/** Parses the `labelSelector` query syntax; throws SelectorParseError naming the position. */
export function parseLabelSelector(selector: string): LabelSelector {
  return LabelSelector.of(new Parser(selector).parse());
}
