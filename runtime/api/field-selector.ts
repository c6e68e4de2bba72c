import { SelectorParseError } from './selector-error.js';

// The field selector syntax of the real system (k8s.io/apimachinery/pkg/fields): comma-separated
// terms `<field>=<value>`, `<field>==<value>` or `<field>!=<value>`, all ANDed. The field is taken
// literally up to the first operator; in the value `\,` `\=` and `\\` stand for `,` `=` and `\`,
// and an unescaped `,` or `=` is an error.

export type FieldSelectorOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldSelectorOperator;
  /** The unescaped value. */
  readonly value: string;
}

/** Flat field values of one object: `metadata.name` -> `web`. A missing field reads as ''. */
export type Fields = Readonly<Record<string, string>>;

/** A parsed field selector: an AND of equality and inequality terms. */
export class FieldSelector {
  readonly #requirements: readonly FieldRequirement[];

  constructor(requirements: readonly FieldRequirement[]) {
    this.#requirements = [...requirements];
  }

  /** The terms, in the real system's order (sorted by their text when parsed). */
  requirements(): readonly FieldRequirement[] {
    return this.#requirements;
  }

  static everything(): FieldSelector {
    return new FieldSelector([]);
  }

  isEmpty(): boolean {
    return this.#requirements.length === 0;
  }

  /** As the real system: a field the object does not have reads as the empty string. */
  matches(fields: Fields): boolean {
    return this.#requirements.every((r) => {
      const actual = Object.hasOwn(fields, r.field) ? (fields[r.field] ?? '') : '';
      return r.operator === '!=' ? actual !== r.value : actual === r.value;
    });
  }

  /** The value an `=`/`==` term pins `field` to, if any. */
  requiresExactMatch(field: string): string | undefined {
    return this.#requirements.find((r) => r.field === field && r.operator !== '!=')?.value;
  }

  /** The distinct fields the selector reads, in order. */
  fieldNames(): string[] {
    return [...new Set(this.#requirements.map((r) => r.field))];
  }

  /** The query form, values escaped; `==` prints as `=` as in the real system. */
  toString(): string {
    return this.#requirements.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldSelectorValue(r.value)}`).join(',');
  }
}

/** Escapes `\`, `,` and `=` so that any string can be a field selector value. */
export function escapeFieldSelectorValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Reverses escapeFieldSelectorValue; `offset` is where the value starts in the whole selector,
 * for error positions. Throws SelectorParseError.
 */
export function unescapeFieldSelectorValue(value: string, selector = value, offset = 0): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charAt(i);
    if (c === '\\') {
      const next = value.charAt(i + 1);
      if (next === '\\' || next === ',' || next === '=') {
        out += next;
        i++;
        continue;
      }
      const sequence = next === '' ? '\\' : `\\${next}`;
      throw new SelectorParseError(
        'field',
        selector,
        `invalid escape sequence ${JSON.stringify(sequence)} in value; only \\\\, \\, and \\= are escapes`,
        offset + i,
      );
    }
    if (c === ',' || c === '=') {
      throw new SelectorParseError('field', selector, `unescaped '${c}' in value ${JSON.stringify(value)}; write it as \\${c}`, offset + i);
    }
    out += c;
  }
  return out;
}

interface Term {
  text: string;
  position: number;
}

// Splits at commas that are not escaped; an escaped comma stays in its term with its backslash.
function splitTerms(selector: string): Term[] {
  if (selector === '') return [];
  const terms: Term[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector.charAt(i);
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push({ text: selector.slice(start, i), position: start });
      start = i + 1;
    }
  }
  terms.push({ text: selector.slice(start), position: start });
  return terms;
}

const OPERATORS: readonly FieldSelectorOperator[] = ['!=', '==', '='];

// The first operator occurrence splits the term ("==" before "=" so the value keeps no '=').
function splitTerm(term: string): { field: string; operator: FieldSelectorOperator; raw: string; valueOffset: number } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const operator of OPERATORS) {
      if (term.startsWith(operator, i))
        return { field: term.slice(0, i), operator, raw: term.slice(i + operator.length), valueOffset: i + operator.length };
    }
  }
  return undefined;
}

/**
 * Parses the `fieldSelector` query syntax (`metadata.name=web,status.phase!=Running`); terms are
 * sorted as the real system sorts them. Throws SelectorParseError naming the position.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const terms = splitTerms(selector).sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const requirements: FieldRequirement[] = [];
  for (const term of terms) {
    if (term.text === '') continue;
    const parts = splitTerm(term.text);
    if (!parts) {
      throw new SelectorParseError(
        'field',
        selector,
        `can't understand '${term.text}'; expected <field>=<value>, <field>==<value> or <field>!=<value>`,
        term.position,
      );
    }
    const value = unescapeFieldSelectorValue(parts.raw, selector, term.position + parts.valueOffset);
    requirements.push({ field: parts.field, operator: parts.operator, value });
  }
  return new FieldSelector(requirements);
}

/** A selector that matches exactly these field values. */
export function fieldSelectorFromSet(fields: Fields): FieldSelector {
  return new FieldSelector(Object.entries(fields).map(([field, value]) => ({ field, operator: '=', value })));
}

/**
 * Throws SelectorParseError unless every field the selector reads is supported by the resource
 * (the server answers 400 `field label not supported`).
 */
export function assertFieldsSupported(selector: FieldSelector, supported: readonly string[]): void {
  const unsupported = selector.fieldNames().filter((f) => !supported.includes(f));
  if (unsupported.length > 0) {
    throw new SelectorParseError(
      'field',
      selector.toString(),
      `field label not supported: ${unsupported.join(', ')} (supported: ${supported.join(', ')})`,
    );
  }
}

/**
 * The selectable fields of an object: `metadata.name` and `metadata.namespace` (empty for
 * cluster-scoped objects), plus each dotted path in `extraFields` (`spec.nodeName`,
 * `status.phase`); scalars print as text, anything missing or structured reads as ''.
 */
export function selectableFieldsOf(object: unknown, extraFields: readonly string[] = []): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': scalarText(readPath(object, 'metadata.name')),
    'metadata.namespace': scalarText(readPath(object, 'metadata.namespace')),
  };
  for (const path of extraFields) fields[path] = scalarText(readPath(object, path));
  return fields;
}

function readPath(object: unknown, path: string): unknown {
  let current = object;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}
