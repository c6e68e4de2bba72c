/** Errors a scenario run ends with; anything else thrown is reported as a failure with its message. */

/** An expectation did not hold: the scenario fails with this message. */
export class ExpectationFailed extends Error {
  override readonly name = 'ExpectationFailed';
}

/** The scenario cannot apply to this server (opaque versions, unknown window): it is skipped. */
export class ScenarioSkipped extends Error {
  override readonly name = 'ScenarioSkipped';
}

/** A scenario refers to a variable nobody set: a bug in the scenario, reported as a failure. */
export class UndefinedVariableError extends Error {
  override readonly name = 'UndefinedVariableError';
}

/** The kit refused a request that could touch objects this run did not create. */
export class UnsafeRequestError extends Error {
  override readonly name = 'UnsafeRequestError';
}

export function isExpectationFailed(e: unknown): e is ExpectationFailed {
  return e instanceof Error && e.name === 'ExpectationFailed';
}

export function isScenarioSkipped(e: unknown): e is ScenarioSkipped {
  return e instanceof Error && e.name === 'ScenarioSkipped';
}
