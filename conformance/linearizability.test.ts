import { describe, expect, it } from 'vitest';
import { type Operation, type RegisterInput, type RegisterOutput, checkLinearizable, registerModel } from './linearizability.js';

type Op = Operation<RegisterInput, RegisterOutput>;
const model = registerModel({ version: '1', value: 'a' });
const read = (call: number, ret: number, version: string, value: string): Op => ({
  call,
  ret,
  input: { op: 'read' },
  output: { version, value },
});
const write = (call: number, ret: number, expectedVersion: string, value: string, result: string | 'conflict' | undefined): Op => ({
  call,
  ret: result === undefined ? Infinity : ret,
  input: { op: 'write', expectedVersion, value },
  output: result === undefined ? undefined : result === 'conflict' ? { conflict: true } : { version: result, value },
});

describe('checkLinearizable over the register model', () => {
  it('accepts a sequential history', () => {
    const h = [
      read(0, 1, '1', 'a'),
      write(2, 3, '1', 'b', '2'),
      read(4, 5, '2', 'b'),
      write(6, 7, '1', 'c', 'conflict'),
      read(8, 9, '2', 'b'),
    ];
    expect(checkLinearizable(model, h).linearizable).toBe(true);
  });

  it('rejects a stale read after a write returned', () => {
    const h = [write(0, 1, '1', 'b', '2'), read(2, 3, '1', 'a')];
    const r = checkLinearizable(model, h);
    expect(r.linearizable).toBe(false);
    expect(r.longestPrefix).toEqual([0]);
  });

  it('accepts an old value read concurrently with the write that replaces it', () => {
    const h = [write(0, 10, '1', 'b', '2'), read(1, 2, '1', 'a'), read(3, 4, '2', 'b')];
    expect(checkLinearizable(model, h).linearizable).toBe(true);
  });

  it('accepts two concurrent writers on one version where one wins and one conflicts, in either order of return', () => {
    expect(
      checkLinearizable(model, [write(0, 5, '1', 'b', '2'), write(1, 4, '1', 'c', 'conflict'), read(6, 7, '2', 'b')]).linearizable,
    ).toBe(true);
    expect(
      checkLinearizable(model, [write(0, 5, '1', 'b', 'conflict'), write(1, 4, '1', 'c', '2'), read(6, 7, '2', 'c')]).linearizable,
    ).toBe(true);
  });

  it('rejects two writers that both succeed from the same version (a lost update)', () => {
    const h = [write(0, 5, '1', 'b', '2'), write(1, 4, '1', 'c', '3')];
    expect(checkLinearizable(model, h).linearizable).toBe(false);
  });

  it('rejects a conflict when nothing else changed the object', () => {
    expect(checkLinearizable(model, [write(0, 1, '1', 'b', 'conflict')]).linearizable).toBe(false);
  });

  it('lets a write with a lost answer take effect or not', () => {
    expect(checkLinearizable(model, [write(0, 1, '1', 'b', undefined), read(5, 6, '7', 'b')]).linearizable).toBe(true);
    expect(checkLinearizable(model, [write(0, 1, '1', 'b', undefined), read(5, 6, '1', 'a')]).linearizable).toBe(true);
    expect(checkLinearizable(model, [write(0, 1, '1', 'b', undefined), read(5, 6, '7', 'z')]).linearizable).toBe(false);
  });

  it('checks a few hundred concurrent operations quickly thanks to memoisation', () => {
    // Four clients that each read then write what they read, 60 rounds, interleaved in real time.
    const h: Op[] = [];
    let version = 1;
    let value = 'a';
    for (let round = 0; round < 60; round++) {
      const t = round * 10;
      for (let c = 0; c < 4; c++) h.push(read(t + c, t + 5 + c, String(version), value));
      const winner = round % 4;
      for (let c = 0; c < 4; c++)
        h.push(write(t + 6 + c, t + 9, String(version), `${round}-${c}`, c === winner ? String(version + 1) : 'conflict'));
      version += 1;
      value = `${round}-${winner}`;
    }
    const r = checkLinearizable(model, h);
    expect(r.linearizable).toBe(true);
    expect(r.steps).toBeLessThan(200_000);
  });
});
