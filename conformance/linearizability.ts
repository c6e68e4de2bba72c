/**
 * A linearizability checker for histories of concurrent operations, in the manner of Wing & Gong
 * with Lowe's memoisation (what porcupine and Knossos do): it searches for one total order of the
 * operations that respects real time (an operation that returned before another was called comes
 * first) and that a sequential model accepts step by step. Histories of independent keys are
 * checked one key at a time (linearizability is compositional).
 */

/** One operation as a client saw it: when it was called and when it returned, what it asked and what it got. */
export interface Operation<I, O> {
  /** Client-side clock at the call and at the return; `ret` is Infinity when the outcome is unknown (a lost connection). */
  call: number;
  ret: number;
  input: I;
  /** Undefined when the outcome is unknown: the operation may or may not have taken effect. */
  output: O | undefined;
}

/** A sequential specification: the state, and what one operation does to it. */
export interface Model<S, I, O> {
  init: S;
  /** The next state when `input` applied to `state` may give `output`; undefined when it cannot. */
  step(state: S, input: I, output: O | undefined): S | undefined;
  /** A stable text form of a state, for memoisation. */
  key(state: S): string;
}

export interface CheckResult {
  linearizable: boolean;
  /** Search steps taken (for reports and for tests of the pruning). */
  steps: number;
  /** When not linearizable: the longest prefix of operations (indexes into the history) that could be ordered. */
  longestPrefix?: number[];
}

/**
 * True when some order of `history` consistent with real time is accepted by `model`. Operations
 * with an unknown outcome may be left out (they may never have happened) or placed anywhere after
 * their call. `maxSteps` bounds the search; beyond it the check throws rather than guess.
 */
export function checkLinearizable<S, I, O>(model: Model<S, I, O>, history: readonly Operation<I, O>[], maxSteps = 2_000_000): CheckResult {
  const n = history.length;
  const done = new Uint8Array(n);
  const required = history.filter((op) => op.ret !== Infinity).length;
  const seen = new Set<string>();
  const order: number[] = [];
  let longest: number[] = [];
  let steps = 0;

  const search = (state: S, linearized: number): boolean => {
    if (linearized === required && history.every((op, i) => done[i] || op.ret === Infinity)) return true;
    // The next operation must have been called before every pending operation returned.
    let horizon = Infinity;
    for (let i = 0; i < n; i++) if (!done[i] && history[i]!.ret < horizon) horizon = history[i]!.ret;
    for (let i = 0; i < n; i++) {
      const op = history[i]!;
      if (done[i] || op.call > horizon) continue;
      if (++steps > maxSteps) throw new Error(`linearizability check: gave up after ${maxSteps} steps on ${n} operations`);
      const next = model.step(state, op.input, op.output);
      if (next === undefined) continue;
      done[i] = 1;
      const memo = `${model.key(next)}|${done.join('')}`;
      if (!seen.has(memo)) {
        seen.add(memo);
        order.push(i);
        if (order.length > longest.length) longest = [...order];
        if (search(next, op.ret === Infinity ? linearized : linearized + 1)) return true;
        order.pop();
      }
      done[i] = 0;
    }
    return false;
  };

  const linearizable = search(model.init, 0);
  return linearizable ? { linearizable, steps } : { linearizable, steps, longestPrefix: longest };
}

/** Input of an operation on one object seen as a register with compare-and-set (a resourceVersion precondition). */
export type RegisterInput = { op: 'read' } | { op: 'write'; expectedVersion: string; value: string };

/** What the server answered: the version and value read or written, or a conflict (409) for a write. */
export type RegisterOutput = { version: string; value: string } | { conflict: true };

/** The object's version and value; `version` '?' after a write whose answer was lost (any version matches once). */
export interface RegisterState {
  version: string;
  value: string;
}

/** The sequential specification of an object under reads and conditional updates. */
export function registerModel(init: RegisterState): Model<RegisterState, RegisterInput, RegisterOutput> {
  return {
    init,
    key: (s) => `${s.version}\u0000${s.value}`,
    step(state, input, output) {
      if (input.op === 'read') {
        if (output === undefined) return state;
        if ('conflict' in output || output.value !== state.value) return undefined;
        if (state.version === '?') return { version: output.version, value: state.value };
        return output.version === state.version ? state : undefined;
      }
      const matches = state.version === '?' || state.version === input.expectedVersion;
      if (output === undefined) return matches ? { version: '?', value: input.value } : state;
      if ('conflict' in output) return matches && state.version !== '?' ? undefined : state;
      if (!matches || output.value !== input.value || output.version === input.expectedVersion) return undefined;
      return { version: output.version, value: output.value };
    },
  };
}
