import { isMap, isScalar, isSeq, LineCounter, type Node, parseAllDocuments } from 'yaml';
import { KindRules, rulesRunAfter } from '../cel/index.js';
import type { KindRegistration } from '../schema/index.js';
import { type FieldError, fieldErrorMessage } from '../api/index.js';
import { Collector } from '../validate/index.js';
import { setConditionalDefaults } from './conditional-defaults.js';
import { expressionProblems } from './config-expressions.js';
import { embeddedDocuments } from './plugin-args.js';
import { defaulterOf, validatorOf } from '../schema/index.js';

/** A position in a file: 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/** One finding about one document. */
export interface Finding {
  severity: 'error' | 'warning';
  /** The field path (`spec.profiles[0].plugins`), empty for the whole document. */
  field: string;
  message: string;
  position: Position;
  /** The CEL rule, for rule failures. */
  rule?: string;
}

export interface DocumentResult {
  file: string;
  /** 0-based index of the document in the file. */
  index: number;
  position: Position;
  apiVersion?: string;
  kind?: string;
  status: 'valid' | 'invalid' | 'skipped';
  findings: Finding[];
  /** The document after defaulting (with `keepDocuments`), for `--print-defaults`. */
  document?: unknown;
}

export interface ValidateDocumentsOptions {
  /** Unknown and duplicate fields are errors instead of warnings. */
  strict?: boolean;
  /** Documents of unknown kinds (or with no apiVersion and kind) are errors instead of skipped. */
  strictKinds?: boolean;
  /** Keep each checked document, defaulted, in its result (`document`). */
  keepDocuments?: boolean;
}

/**
 * Validates configuration documents as the components that read them would: each YAML or JSON
 * document (several per file, separated by `---`) is dispatched on apiVersion and kind, defaulted,
 * then checked (structure, bounds, formats, CEL rules). Documents of unknown kinds are skipped with
 * a warning, as the bootstrap tool does. Every finding points at the offending node.
 */
export class DocumentValidator {
  private readonly kinds = new Map<string, KindRegistration>();
  private readonly rules = new KindRules();

  constructor(kinds: readonly KindRegistration[]) {
    for (const k of kinds) this.kinds.set(`${k.apiVersion} ${k.kind}`, k);
  }

  validateText(file: string, text: string, options: ValidateDocumentsOptions = {}): DocumentResult[] {
    const lines = new LineCounter();
    const docs = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: false });
    const list = Array.isArray(docs) ? docs : [];
    return list.flatMap((doc, index) => {
      const position = at(lines, doc.contents?.range?.[0] ?? 0);
      const base = { file, index, position };
      if (doc.errors.length > 0) {
        const e = doc.errors[0]!;
        return [
          {
            ...base,
            status: 'invalid' as const,
            findings: [
              {
                severity: 'error' as const,
                field: '',
                message: `not valid YAML: ${e.message.split('\n')[0]}`,
                position: at(lines, e.pos[0]),
              },
            ],
          },
        ];
      }
      const value: unknown = doc.toJS({ maxAliasCount: 1000 });
      if (value === null || value === undefined) return [];
      const nodes = new NodeIndex(doc.contents, lines, text);
      return [this.validateValue(base, value, nodes, options)];
    });
  }

  /** The known kind of `apiVersion` nearest to `kind` (a typo: at most 2 edits), or the kind in another version. */
  private closestKind(apiVersion: string, kind: string): string | undefined {
    let best: { name: string; d: number } | undefined;
    for (const k of this.kinds.values()) {
      if (k.apiVersion !== apiVersion) continue;
      const d = editDistance(k.kind.toLowerCase(), kind.toLowerCase());
      if (d <= 2 && (!best || d < best.d)) best = { name: k.kind, d };
    }
    if (best) return best.name;
    const elsewhere = [...this.kinds.values()].filter((k) => k.kind === kind).map((k) => k.apiVersion);
    return elsewhere.length > 0 ? `${kind} in ${elsewhere.sort().join(' or ')}` : undefined;
  }

  private validateValue(
    base: Pick<DocumentResult, 'file' | 'index' | 'position'>,
    value: unknown,
    nodes: NodeIndex,
    options: ValidateDocumentsOptions,
  ): DocumentResult {
    const v = (value ?? {}) as Record<string, unknown>;
    const apiVersion = typeof v.apiVersion === 'string' ? v.apiVersion : undefined;
    const kind = typeof v.kind === 'string' ? v.kind : undefined;
    const result: DocumentResult = {
      ...base,
      status: 'valid',
      findings: [],
      ...(apiVersion ? { apiVersion } : {}),
      ...(kind ? { kind } : {}),
    };
    // An unknown kind is skipped with a warning, as the bootstrap tool does; an error with strictKinds.
    const unknown = (field: string, what: string, hint = ''): DocumentResult => {
      result.status = options.strictKinds ? 'invalid' : 'skipped';
      result.findings.push({
        severity: options.strictKinds ? 'error' : 'warning',
        field: options.strictKinds ? field : '',
        message: options.strictKinds ? `${what}${hint}` : `${what}: skipped${hint}`,
        position: options.strictKinds && field ? nodes.positionOf(field, base.position) : base.position,
      });
      return result;
    };
    if (typeof value !== 'object' || Array.isArray(value) || !apiVersion || !kind) {
      return unknown('', 'not a configuration document: apiVersion and kind are required to know what to check');
    }
    const registration = this.kinds.get(`${apiVersion} ${kind}`);
    if (!registration) {
      const meant = this.closestKind(apiVersion, kind);
      return unknown('kind', `unknown kind ${kind} in ${apiVersion}`, meant ? ` (did you mean ${meant}?)` : '');
    }
    const fieldSeverity = options.strict ? 'error' : 'warning';
    for (const dup of nodes.duplicates) {
      result.findings.push({
        severity: fieldSeverity,
        field: dup.field,
        message: `duplicate field "${dup.field}"`,
        position: dup.position,
      });
    }
    defaulterOf(registration.schema)(value);
    setConditionalDefaults(apiVersion, kind, value);
    const embeddingErrors: FieldError[] = [];
    const embedded = embeddedDocuments(apiVersion, kind, value, (v, k) => this.kinds.get(`${v} ${k}`), embeddingErrors);
    const collector = new Collector();
    validatorOf(registration.schema)(value, '', collector);
    for (const e of embedded) validatorOf(e.registration.schema)(e.value, e.path, collector);
    if (options.keepDocuments) result.document = value;
    for (const field of collector.unknownFields) {
      result.findings.push({
        severity: fieldSeverity,
        field,
        message: `unknown field "${field}"`,
        position: nodes.positionOf(field, base.position),
      });
    }
    // Rules read typed values: they run once the structure is right, as the server does.
    const errors = [
      ...embeddingErrors,
      ...collector.errors,
      ...(rulesRunAfter(registration, collector.errors)
        ? [
            ...this.rules.of(registration).validate(value),
            ...embedded.flatMap((e) => this.rules.of(e.registration).validate(e.value, undefined, { path: e.path })),
          ]
        : []),
    ];
    for (const e of errors) {
      // One renderer for the server's 422, this report and the client's StatusError.
      const finding: Finding = {
        severity: 'error',
        field: e.field,
        message: fieldErrorMessage(e),
        position: nodes.positionOf(e.field, base.position),
      };
      if (e.rule !== undefined) finding.rule = e.rule;
      result.findings.push(finding);
    }
    // The expressions of configuration kinds, compiled as the component compiles them on load.
    if (collector.ok) {
      for (const p of expressionProblems(apiVersion, kind, value)) {
        const covered = result.findings.some(
          (f) => f.severity === 'error' && (f.field === p.field || p.field.startsWith(`${f.field}.`) || p.field.startsWith(`${f.field}[`)),
        );
        if (covered) continue;
        result.findings.push({
          severity: 'error',
          field: p.field,
          message: fieldErrorMessage({
            type: p.duplicate ? 'FieldValueDuplicate' : 'FieldValueInvalid',
            field: p.field,
            badValue: p.expression ?? valueAtPath(value, p.field),
            detail: p.detail,
          }),
          position: nodes.positionInScalar(p.field, p.line, p.column) ?? nodes.positionOf(p.field, base.position),
        });
      }
    }
    if (result.findings.some((f) => f.severity === 'error')) result.status = 'invalid';
    return result;
  }
}

/** The value at a field path such as `a.b[0].c`. */
function valueAtPath(root: unknown, path: string): unknown {
  let v = root;
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (Array.isArray(v)) v = v[Number(part)];
    else if (v !== null && typeof v === 'object') v = (v as Record<string, unknown>)[part];
    else return undefined;
  }
  return v;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

function at(lines: LineCounter, offset: number): Position {
  const p = lines.linePos(offset);
  return { line: p.line, column: p.col };
}

/**
 * Positions of the nodes of one YAML document by field path (`a.b[0].c`, map keys `a.labels[key]`
 * for maps the validator reports with brackets are also found under `a.labels.key`), and the
 * duplicate keys found on the way.
 */
class NodeIndex {
  readonly duplicates: { field: string; position: Position }[] = [];
  private readonly positions = new Map<string, Position>();
  /** Scalar values by field path: the source range and the value. */
  private readonly scalars = new Map<string, { start: number; end: number; value: string }>();

  constructor(
    root: Node | null,
    private readonly lines: LineCounter,
    private readonly text: string,
  ) {
    if (root) this.walk(root, '');
  }

  /**
   * The position of line `line`, column `column` (1-based) of the string value at `field`, found
   * in its source: exact for plain, quoted (without escapes) and literal block scalars; the start
   * of the value when the text cannot be found as written; undefined when `field` is no string.
   */
  positionInScalar(field: string, line?: number, column?: number): Position | undefined {
    const s = this.scalars.get(normalize(field));
    if (!s) return undefined;
    const source = this.text.slice(s.start, s.end);
    const start = at(this.lines, s.start);
    if (line === undefined || column === undefined) {
      // The first character of the value, past an opening quote or a block header.
      const first = s.value.split('\n')[0] ?? '';
      const i = first === '' ? -1 : source.indexOf(first);
      return i < 0 ? start : at(this.lines, s.start + i);
    }
    const valueLines = s.value.split('\n');
    let cursor = 0;
    for (let k = 0; k < line - 1 && k < valueLines.length; k++) {
      const i = source.indexOf(valueLines[k]!, cursor);
      if (i < 0) return start;
      cursor = i + valueLines[k]!.length;
    }
    const target = valueLines[line - 1] ?? '';
    // An empty line (the end of a block scalar): where the previous line ended.
    if (target === '') return cursor > 0 ? at(this.lines, s.start + cursor) : start;
    const i = source.indexOf(target, cursor);
    if (i < 0) return start;
    return at(this.lines, s.start + i + Math.min(column - 1, target.length));
  }

  /** The position of the deepest node on `field`'s path that exists. */
  positionOf(field: string, fallback: Position): Position {
    let path = normalize(field);
    for (;;) {
      const p = this.positions.get(path);
      if (p) return p;
      if (path === '') return fallback;
      path = parent(path);
    }
  }

  private walk(node: Node, path: string): void {
    // A field's key, recorded by its parent, is where a reader looks first.
    if (!this.positions.has(path)) this.positions.set(path, at(this.lines, node.range?.[0] ?? 0));
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const child = path === '' ? key : `${path}.${key}`;
        const keyNode = pair.key as Node | null;
        if (seen.has(key)) this.duplicates.push({ field: child, position: at(this.lines, keyNode?.range?.[0] ?? 0) });
        seen.add(key);
        // The key's position is where a reader looks for a field; the value's for its content.
        if (keyNode?.range) this.positions.set(child, at(this.lines, keyNode.range[0]));
        if (pair.value && (isMap(pair.value) || isSeq(pair.value))) this.walk(pair.value as Node, child);
        else if (isScalar(pair.value) && typeof pair.value.value === 'string' && pair.value.range) {
          this.scalars.set(child, { start: pair.value.range[0], end: pair.value.range[1], value: pair.value.value });
        }
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        if (item && typeof item === 'object' && 'range' in item) this.walk(item as Node, `${path}[${i}]`);
      });
    }
  }
}

/** `metadata.labels[app]` and `metadata.labels.app` name the same node. */
function normalize(field: string): string {
  return field.replace(/\[([^\]\d][^\]]*)\]/g, '.$1');
}

function parent(path: string): string {
  const m = /^(.*)(\.[^.[\]]+|\[\d+\])$/.exec(path);
  return m ? m[1]! : '';
}
