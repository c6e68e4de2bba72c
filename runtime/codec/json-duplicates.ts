import { fieldPath, itemPath, readJson } from './json-reader.js';

/**
 * Finds duplicate keys in JSON text, which JSON.parse silently resolves (last one wins). The server
 * needs them for field validation: each duplicate is a warning (Warn) or an error (Strict).
 * Only called on text JSON.parse already accepted, so the scanner can trust the syntax.
 */
export function findDuplicateKeys(text: string): string[] {
  const scanner = new Scanner(text);
  scanner.value('');
  return scanner.duplicates;
}

class Scanner {
  readonly duplicates: string[] = [];
  private i = 0;

  constructor(private readonly text: string) {}

  value(path: string): void {
    this.space();
    const c = this.text.charCodeAt(this.i);
    if (c === 123 /* { */) this.object(path);
    else if (c === 91 /* [ */) this.array(path);
    else if (c === 34 /* " */) this.string();
    else this.literal();
  }

  private object(path: string): void {
    this.i++; // {
    const seen = new Set<string>();
    this.space();
    if (this.text.charCodeAt(this.i) === 125) {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      const key = this.string();
      const child = fieldPath(path, key);
      if (seen.has(key)) this.duplicates.push(child);
      else seen.add(key);
      this.space();
      this.i++; // :
      this.value(child);
      this.space();
      if (this.text.charCodeAt(this.i++) === 125 /* } */) return;
    }
  }

  private array(path: string): void {
    this.i++; // [
    this.space();
    if (this.text.charCodeAt(this.i) === 93) {
      this.i++;
      return;
    }
    for (let n = 0; ; n++) {
      this.value(itemPath(path, n));
      this.space();
      if (this.text.charCodeAt(this.i++) === 93 /* ] */) return;
    }
  }

  /** Reads a string literal and returns its decoded value. */
  private string(): string {
    const start = this.i;
    this.i++; // opening quote
    let escaped = false;
    for (;;) {
      const c = this.text.charCodeAt(this.i++);
      if (c === 92 /* \ */) {
        escaped = true;
        this.i++;
      } else if (c === 34 /* " */) break;
    }
    const raw = this.text.slice(start, this.i);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  private literal(): void {
    while (this.i < this.text.length) {
      const c = this.text.charCodeAt(this.i);
      if (c === 44 || c === 93 || c === 125 || c === 32 || c === 10 || c === 13 || c === 9) return;
      this.i++;
    }
  }

  private space(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.i);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.i++;
      else return;
    }
  }
}

/**
 * {@link readJson} and the paths of the keys the text gives twice ({@link findDuplicateKeys}). Text
 * without duplicate keys and without a run of 16 digits (where an integer beyond 2^53 could be)
 * means the same to the platform's parser, which reads it many times faster; other text takes
 * the reader.
 */
export function readJsonWithDuplicates(text: string, mergeDuplicates: boolean): { value: unknown; duplicates: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { value: readJson(text, mergeDuplicates), duplicates: [] }; // throws what the reader throws for it
  }
  let duplicates: string[];
  try {
    duplicates = findDuplicateKeys(text);
  } catch (e) {
    // Nested too deep for the scanner (far beyond what a caller's depth check lets through).
    if (e instanceof RangeError) return { value: parsed, duplicates: [] };
    throw e;
  }
  if (duplicates.length === 0 && !MAY_HOLD_UNSAFE_INTEGER.test(text)) return { value: parsed, duplicates };
  return { value: readJson(text, mergeDuplicates), duplicates };
}

/** The shortest integer beyond 2^53-1 (9007199254740991) has 16 digits. */
const MAY_HOLD_UNSAFE_INTEGER = /\d{16}/;
