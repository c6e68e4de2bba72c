import { fieldPath, itemPath, readJson } from './json-reader.js';

/**
 * Finds duplicate keys in JSON text, which JSON.parse silently resolves (last one wins). The server
 * needs them for field validation: each duplicate is a warning (Warn) or an error (Strict).
 * Only called on text JSON.parse already accepted, so the scanner can trust the syntax.
 */
export function findDuplicateKeys(text: string): string[] {
  const scanner = new Scanner(text);
  scanner.value();
  return scanner.duplicates;
}

/** Objects with more keys than this remember them in a Set; smaller ones in an array (no Set per object). */
const SMALL_OBJECT = 16;

class Scanner {
  readonly duplicates: string[] = [];
  #i = 0;
  /** The keys and indexes from the root to the value being read: a path is written only for a duplicate. */
  readonly #at: (string | number)[] = [];

  constructor(private readonly text: string) {}

  value(): void {
    this.#space();
    const c = this.text.charCodeAt(this.#i);
    if (c === 123 /* { */) this.#object();
    else if (c === 91 /* [ */) this.#array();
    else if (c === 34 /* " */) this.#i = this.#stringEnd();
    else this.#literal();
  }

  #object(): void {
    this.#i++; // {
    this.#space();
    if (this.text.charCodeAt(this.#i) === 125) {
      this.#i++;
      return;
    }
    const keys: string[] = [];
    let many: Set<string> | undefined;
    for (;;) {
      this.#space();
      const key = this.#key();
      if (many ? many.has(key) : keys.includes(key)) this.duplicates.push(this.#pathTo(key));
      else if (many) many.add(key);
      else if (keys.push(key) > SMALL_OBJECT) many = new Set(keys);
      this.#space();
      this.#i++; // :
      this.#at.push(key);
      this.value();
      this.#at.pop();
      this.#space();
      if (this.text.charCodeAt(this.#i++) === 125 /* } */) return;
    }
  }

  #array(): void {
    this.#i++; // [
    this.#space();
    if (this.text.charCodeAt(this.#i) === 93) {
      this.#i++;
      return;
    }
    const depth = this.#at.push(0);
    for (let n = 0; ; n++) {
      this.#at[depth - 1] = n;
      this.value();
      this.#space();
      if (this.text.charCodeAt(this.#i++) === 93 /* ] */) break;
    }
    this.#at.pop();
  }

  #pathTo(key: string): string {
    let path = '';
    for (const step of this.#at) path = typeof step === 'number' ? itemPath(path, step) : fieldPath(path, step);
    return fieldPath(path, key);
  }

  /** Reads a key (a string literal) and returns its decoded value. */
  #key(): string {
    const start = this.#i;
    this.#i = this.#stringEnd();
    const raw = this.text.slice(start + 1, this.#i - 1);
    return raw.includes('\\') ? (JSON.parse(this.text.slice(start, this.#i)) as string) : raw;
  }

  /** The index after the string literal at the cursor (a quote after an odd run of backslashes is escaped). */
  #stringEnd(): number {
    for (let from = this.#i + 1; ; ) {
      const quote = this.text.indexOf('"', from);
      let backslashes = 0;
      while (this.text.charCodeAt(quote - 1 - backslashes) === 92 /* \ */) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      from = quote + 1;
    }
  }

  #literal(): void {
    while (this.#i < this.text.length) {
      const c = this.text.charCodeAt(this.#i);
      if (c === 44 || c === 93 || c === 125 || c === 32 || c === 10 || c === 13 || c === 9) return;
      this.#i++;
    }
  }

  #space(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.#i);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.#i++;
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
