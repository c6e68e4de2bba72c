/**
 * The kit's one object test. The kit imports nothing from the runtime (it must be able to judge
 * any server, including one built on that runtime), so it keeps its own copy of this one helper.
 */
import type { Json, JsonObject } from './types.js';

/** An object that is neither null nor an array: a JSON object, or a mapping read from YAML. */
export function isObject(v: Json | undefined): v is JsonObject;
export function isObject(v: unknown): v is Record<string, unknown>;
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
