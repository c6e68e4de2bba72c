import { describe, expect, it } from 'vitest';
import type { LogEntry } from './log-store.js';
import { NewestEntries } from './newest-entries.js';

const entry = (key: string, value: string, revision = 1): LogEntry => ({
  key,
  value,
  revision,
  createRevision: 1,
  prevRevision: 0,
  deleted: false,
  createdAt: 0,
});

describe('NewestEntries', () => {
  it('drops the least recently used entries once the values pass the capacity', () => {
    const cache = new NewestEntries(10);
    cache.set(entry('a', 'aaaa'));
    cache.set(entry('b', 'bbbb'));
    expect(cache.get('a')?.value).toBe('aaaa'); // a is now the most recent
    cache.set(entry('c', 'cccc'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.value).toBe('aaaa');
    expect(cache.get('c')?.value).toBe('cccc');
  });

  it('counts a replaced value once and forgets a deleted key', () => {
    const cache = new NewestEntries(10);
    cache.set(entry('a', 'aaaaaaaa', 1));
    cache.set(entry('a', 'aaaaaaaa', 2));
    cache.set(entry('b', 'bb'));
    expect(cache.get('a')?.revision).toBe(2);
    expect(cache.size).toBe(2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    cache.set(entry('c', 'cccccccc'));
    expect(cache.get('b')?.value).toBe('bb');
  });

  it('does not keep a value larger than the whole cache', () => {
    const cache = new NewestEntries(4);
    cache.set(entry('a', 'aa'));
    cache.set(entry('big', 'xxxxx'));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('a')?.value).toBe('aa');
  });
});

describe('NewestEntries under churn', () => {
  it('keeps the newest value of each key within the capacity, whatever the mix of reads, writes and deletes', () => {
    const cache = new NewestEntries(50);
    const newest = new Map<string, string>();
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const key = `k${next(30)}`;
      const action = next(10);
      if (action < 5) {
        const value = 'v'.repeat(1 + next(12)) + i;
        cache.set(entry(key, value, i));
        newest.set(key, value);
      } else if (action < 9) {
        const got = cache.get(key);
        if (got) expect(got.value).toBe(newest.get(key));
      } else {
        cache.delete(key);
        newest.delete(key);
      }
      let chars = 0;
      for (const k of newest.keys()) chars += cache.get(k)?.value.length ?? 0;
      expect(chars).toBeLessThanOrEqual(50);
    }
    expect(cache.size).toBeGreaterThan(0);
  });
});
