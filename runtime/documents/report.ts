import type { DocumentResult } from './validate-documents.js';

export interface Summary {
  documents: number;
  valid: number;
  invalid: number;
  skipped: number;
}

export function summarize(results: readonly DocumentResult[]): Summary {
  const count = (s: DocumentResult['status']) => results.filter((r) => r.status === s).length;
  return { documents: results.length, valid: count('valid'), invalid: count('invalid'), skipped: count('skipped') };
}

/**
 * `file:line:column: error: message`, one finding a line, then the summary line. The message is
 * the server's 422 wording, without the rule's text (the JSON report has it); line breaks in a
 * message are folded so that a finding never spans lines.
 */
export function textReport(results: readonly DocumentResult[]): string {
  const lines = results.flatMap((r) =>
    r.findings.map((f) => `${r.file}:${f.position.line}:${f.position.column}: ${f.severity}: ${oneLine(f.message)}`),
  );
  const s = summarize(results);
  lines.push(`${s.documents} documents: ${s.valid} valid, ${s.invalid} invalid, ${s.skipped} skipped`);
  return `${lines.join('\n')}\n`;
}

export function jsonReport(results: readonly DocumentResult[]): string {
  return `${JSON.stringify({ summary: summarize(results), documents: results }, null, 2)}\n`;
}

/** JUnit XML: a test suite per file, a test case per document; invalid ones fail, unknown kinds are skipped. */
export function junitReport(results: readonly DocumentResult[]): string {
  const byFile = new Map<string, DocumentResult[]>();
  for (const r of results) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const s = summarize(results);
  const out = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="svckit validate" tests="${s.documents}" failures="${s.invalid}" skipped="${s.skipped}">`,
  ];
  for (const [file, docs] of byFile) {
    const failures = docs.filter((d) => d.status === 'invalid').length;
    const skipped = docs.filter((d) => d.status === 'skipped').length;
    out.push(`  <testsuite name="${xml(file)}" tests="${docs.length}" failures="${failures}" skipped="${skipped}">`);
    for (const d of docs) {
      const name = `${file}:${d.position.line} document ${d.index + 1}${d.kind ? ` ${d.kind}` : ''}`;
      out.push(`    <testcase classname="${xml(file)}" name="${xml(name)}">`);
      if (d.status === 'invalid') {
        const errors = d.findings.filter((f) => f.severity === 'error');
        out.push(
          `      <failure message="${xml(errors[0]?.message ?? 'invalid')}">${xml(errors.map((f) => `${file}:${f.position.line}:${f.position.column}: ${f.message}`).join('\n'))}</failure>`,
        );
      } else if (d.status === 'skipped') {
        out.push(`      <skipped message="${xml(d.findings[0]?.message ?? 'skipped')}"/>`);
      }
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function xml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
