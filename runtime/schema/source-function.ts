/** Cleared at the first refusal (EvalError): closures from then on. */
let allowed = true;

/**
 * `new Function(...params, body)`, or undefined where the platform refuses to compile code (a
 * browser's Content Security Policy raises EvalError): the caller then builds closures instead.
 * Callers write bodies whose only schema-derived text is identifiers and finite numbers.
 */
export function sourceFunction(params: readonly string[], body: string): ((...args: unknown[]) => unknown) | undefined {
  if (!allowed) return undefined;
  try {
    return new Function(...params, body) as (...args: unknown[]) => unknown;
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    allowed = false;
    return undefined;
  }
}

/** A name is written into compiled source only when it is an identifier (no quote, no escape, nothing to inject). */
export const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
