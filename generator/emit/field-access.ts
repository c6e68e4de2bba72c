import { tsString } from '../print/index.js';

/**
 * Names every object inherits from Object.prototype: `v.constructor` on a document without that
 * field is a function, not undefined, so such a field is read only when the document has it.
 */
const INHERITED = new Set([
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

/** `v.name`, `v['odd-name']`, or for an inherited name `Object.hasOwn(v, 'toString') ? v.toString : undefined`. */
export function fieldAccess(name: string): string {
  const access = /^[A-Za-z_$][\w$]*$/.test(name) ? `v.${name}` : `v[${tsString(name)}]`;
  return INHERITED.has(name) ? `Object.hasOwn(v, ${tsString(name)}) ? ${access} : undefined` : access;
}

/** `v.name` or `v['odd-name']`: the property as an assignment target. */
export function fieldTarget(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `v.${name}` : `v[${tsString(name)}]`;
}
