import type { PatchType } from './patch-type.js';

/**
 * Why a patch was refused, which is what the server's status code depends on:
 * - `malformed`: the patch document itself is wrong whatever it is applied to (400);
 * - `not-applicable`: a well-formed patch that does not fit this document, such as a path that
 *   does not exist (422);
 * - `test-failed`: a JSON Patch `test` operation did not hold, a failed precondition (409 or 422).
 */
export type PatchErrorReason = 'malformed' | 'not-applicable' | 'test-failed';

export interface PatchErrorInit {
  patchType: PatchType;
  reason: PatchErrorReason;
  /** JSON Pointer: the operation's path for JSON Patch, the location in the patch otherwise. */
  path: string;
  /** What was wrong, with the bad value where there is one. */
  detail: string;
  /** Index of the failing operation in a JSON Patch. */
  operationIndex?: number;
  /** Name of the failing JSON Patch operation (`add`, `test`, ...). */
  op?: string;
}

/** A patch that could not be applied; the document it was applied to is left untouched. */
export class PatchError extends Error {
  override readonly name = 'PatchError';
  readonly patchType: PatchType;
  readonly reason: PatchErrorReason;
  readonly path: string;
  readonly detail: string;
  readonly operationIndex: number | undefined;
  readonly op: string | undefined;

  constructor(init: PatchErrorInit) {
    super(messageOf(init));
    this.patchType = init.patchType;
    this.reason = init.reason;
    this.path = init.path;
    this.detail = init.detail;
    this.operationIndex = init.operationIndex;
    this.op = init.op;
  }
}

export function isPatchError(value: unknown): value is PatchError {
  return value instanceof PatchError;
}

function messageOf(init: PatchErrorInit): string {
  const where = init.path === '' ? 'the document root' : init.path;
  if (init.operationIndex !== undefined) {
    return `${init.patchType} operation ${init.operationIndex} (${init.op ?? '?'} ${where}): ${init.detail}`;
  }
  return `${init.patchType} at ${where}: ${init.detail}`;
}
