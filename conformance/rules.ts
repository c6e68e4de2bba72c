/**
 * The catalogue of testable spec rules (`rules.yaml`): every table row and numbered rule of the two
 * spec documents that a server exposes over HTTP, each with its reference (`<doc>#<section>: <key>`),
 * its text, and, for rules deliberately not covered, the reason. Scenarios name their rules by
 * reference; the loader rejects a reference that is not here.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { isObject } from './json.js';

export interface SpecRule {
  ref: string;
  doc: string;
  section: string;
  key: string;
  text: string;
  notCovered?: string;
  /** A rule checked on writes: the verbs, formats and boundaries its scenarios must exercise. */
  writePath?: WritePath;
}

/**
 * Every write verb and body format applies unless exempted with a reason; `versions` and
 * `boundaries` list what must be exercised beyond that (conformance/coverage.ts).
 */
export interface WritePath {
  versions?: string[];
  boundaries?: string[];
  /** Verb, format or boundary → why it does not apply. */
  exempt?: Record<string, string>;
}

function readWritePath(value: unknown, where: string): WritePath | undefined {
  if (value === undefined) return undefined;
  if (value === true) return {};
  if (!isObject(value)) throw new RuleCatalogueError(`${where}: writePath: expected true or {versions, boundaries, exempt}`);
  const strings = (v: unknown, key: string): string[] | undefined => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
      throw new RuleCatalogueError(`${where}: writePath.${key}: expected a list of strings`);
    return v as string[];
  };
  const exempt = value.exempt;
  if (exempt !== undefined && (!isObject(exempt) || !Object.values(exempt).every((x) => typeof x === 'string'))) {
    throw new RuleCatalogueError(`${where}: writePath.exempt: expected {<verb, format or boundary>: <reason>}`);
  }
  const versions = strings(value.versions, 'versions');
  const boundaries = strings(value.boundaries, 'boundaries');
  return {
    ...(versions ? { versions } : {}),
    ...(boundaries ? { boundaries } : {}),
    ...(exempt ? { exempt: exempt as Record<string, string> } : {}),
  };
}

export type RuleCatalogue = Map<string, SpecRule>;

export class RuleCatalogueError extends Error {
  override readonly name = 'RuleCatalogueError';
}

export const DEFAULT_RULES_FILE = new URL('./rules.yaml', import.meta.url);

export function parseRules(text: string, file: string): RuleCatalogue {
  const doc: unknown = parseYaml(text);
  if (!Array.isArray(doc)) throw new RuleCatalogueError(`${file}: expected a list of sections`);
  const out: RuleCatalogue = new Map();
  doc.forEach((section: unknown, i) => {
    if (!isObject(section) || typeof section.section !== 'string' || !Array.isArray(section.rules)) {
      throw new RuleCatalogueError(`${file}: section ${i}: expected {section: "<doc>#<heading>", rules: [...]}`);
    }
    const [docName, heading] = section.section.split('#');
    if (!docName || !heading) throw new RuleCatalogueError(`${file}: section "${section.section}": expected "<doc>#<heading>"`);
    const sectionNotCovered = typeof section.notCovered === 'string' ? section.notCovered : undefined;
    section.rules.forEach((rule: unknown, j) => {
      if (!isObject(rule) || (typeof rule.key !== 'string' && typeof rule.key !== 'number') || typeof rule.text !== 'string') {
        throw new RuleCatalogueError(`${file}: ${section.section} rule ${j}: expected {key, text}`);
      }
      const ref = `${section.section}: ${String(rule.key)}`;
      if (out.has(ref)) throw new RuleCatalogueError(`${file}: duplicate rule ${ref}`);
      // A rule's own notCovered (a reason, or false for a testable rule) overrides its section's.
      const notCovered = 'notCovered' in rule ? (typeof rule.notCovered === 'string' ? rule.notCovered : undefined) : sectionNotCovered;
      const writePath = readWritePath(rule.writePath, `${file}: ${ref}`);
      out.set(ref, {
        ref,
        doc: docName,
        section: heading,
        key: String(rule.key),
        text: rule.text,
        ...(notCovered ? { notCovered } : {}),
        ...(writePath ? { writePath } : {}),
      });
    });
  });
  return out;
}

export function readRules(file: string | URL = DEFAULT_RULES_FILE): RuleCatalogue {
  return parseRules(readFileSync(file, 'utf8'), String(file));
}
