import { isMap, isScalar, isSeq, LineCounter, type Node, parseAllDocuments } from 'yaml';
import { KindRules } from '../cel/index.js';
import type { KindRegistration } from '../schema/index.js';
import { fieldErrorMessage } from '../api/index.js';
import { Collector } from '../validate/index.js';

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
}

export interface ValidateDocumentsOptions {
  /** Unknown and duplicate fields are errors instead of warnings. */
  strict?: boolean;
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
      const nodes = new NodeIndex(doc.contents, lines);
      return [this.validateValue(base, value, nodes, options)];
    });
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
    if (typeof value !== 'object' || Array.isArray(value) || !apiVersion || !kind) {
      result.status = 'skipped';
      result.findings.push({
        severity: 'warning',
        field: '',
        message: 'not a configuration document: apiVersion and kind are required to know what to check',
        position: base.position,
      });
      return result;
    }
    const registration = this.kinds.get(`${apiVersion} ${kind}`);
    if (!registration) {
      result.status = 'skipped';
      result.findings.push({
        severity: 'warning',
        field: '',
        message: `unknown kind ${kind} in ${apiVersion}: skipped`,
        position: base.position,
      });
      return result;
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
    registration.setDefaults(value);
    const collector = new Collector();
    registration.validate(value, '', collector);
    for (const field of collector.unknownFields) {
      result.findings.push({
        severity: fieldSeverity,
        field,
        message: `unknown field "${field}"`,
        position: nodes.positionOf(field, base.position),
      });
    }
    // Rules read typed values: they run once the structure is right, as the server does.
    const errors = collector.ok ? this.rules.of(registration).validate(value) : collector.errors;
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
    if (result.findings.some((f) => f.severity === 'error')) result.status = 'invalid';
    return result;
  }
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

  constructor(
    root: Node | null,
    private readonly lines: LineCounter,
  ) {
    if (root) this.walk(root, '');
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
