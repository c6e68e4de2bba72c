/**
 * Known-failing lists: one id glob per line, `#` starts a comment. A listed scenario that fails does
 * not fail the run; one that passes does (the list is stale), and so does a pattern matching no
 * scenario at all.
 */
import { readFileSync } from 'node:fs';
import { matchesGlob } from './glob.js';

export interface KnownFailing {
  file: string;
  patterns: { pattern: string; line: number }[];
}

export function parseKnownFailing(text: string, file = '<known-failing>'): KnownFailing {
  const patterns: KnownFailing['patterns'] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const pattern = raw.replace(/#.*$/, '').trim();
    if (pattern) patterns.push({ pattern, line: i + 1 });
  });
  return { file, patterns };
}

export function readKnownFailing(file: string): KnownFailing {
  return parseKnownFailing(readFileSync(file, 'utf8'), file);
}

export function isKnownFailing(list: KnownFailing | undefined, id: string): boolean {
  return list?.patterns.some((p) => matchesGlob(id, p.pattern)) ?? false;
}

/** Patterns that match none of the given ids: each is a stale entry. */
export function unusedPatterns(list: KnownFailing | undefined, ids: readonly string[]): KnownFailing['patterns'] {
  return (list?.patterns ?? []).filter((p) => !ids.some((id) => matchesGlob(id, p.pattern)));
}
