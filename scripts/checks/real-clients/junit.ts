/** Reads a JUnit XML report (pytest's --junitxml) into case outcomes. */
import type { CaseOutcome } from './outcome.js';
import { excerpt } from './outcome.js';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, e: string) => {
    if (e.startsWith('#x') || e.startsWith('#X')) return String.fromCodePoint(Number.parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number.parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? whole;
  });
}

function attribute(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescapeXml(m[1]!) : undefined;
}

/** Every `<testcase>`: failed when it holds a `<failure>` or `<error>`, skipped with `<skipped>`. */
export function junitOutcomes(xml: string): CaseOutcome[] {
  const cases: CaseOutcome[] = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const open = m[1]!;
    const body = m[2] ?? '';
    const name = `${attribute(open, 'classname') ?? ''}::${attribute(open, 'name') ?? ''}`;
    const problem = /<(failure|error)\b([^>]*)>([\s\S]*?)<\/\1>|<(failure|error)\b([^>]*)\/>/.exec(body);
    const skipped = /<skipped\b([^>]*)/.exec(body);
    if (problem) {
      const message = attribute(problem[2] ?? problem[5] ?? '', 'message') ?? '';
      cases.push({ name, status: 'failed', reason: excerpt(message || unescapeXml(problem[3] ?? '')) });
    } else if (skipped) {
      cases.push({ name, status: 'skipped', reason: attribute(skipped[1]!, 'message') ?? '' });
    } else {
      cases.push({ name, status: 'passed' });
    }
  }
  return cases;
}
