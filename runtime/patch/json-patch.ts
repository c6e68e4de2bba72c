/**
 * JSON Patch (RFC 6902). Operations are checked first, so a malformed patch is reported as such
 * whatever the document; then they run in order on a private copy, so a failing operation leaves
 * the caller's document as it was.
 */
import { PatchError, type PatchErrorReason } from './errors.js';
import { arrayIndexOf, isProperPrefix, parsePointer } from './json-pointer.js';
import {
  cloneJson,
  describeJson,
  getOwn,
  hasOwn,
  isJsonObject,
  isObject,
  jsonEqual,
  pointerOf,
  setOwn,
  toOwnedJson,
  type JsonValue,
} from '../json/index.js';

/** One operation as a client writes it; `applyJsonPatch` accepts any parsed JSON and checks it. */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string }
  | { op: 'test'; path: string; value: unknown };

type OperationName = JsonPatchOperation['op'];

const OPERATION_NAMES: ReadonlySet<string> = new Set<OperationName>(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** An operation after checking: pointers split into tokens, the value copied and owned. */
interface CheckedOperation {
  index: number;
  op: OperationName;
  path: string;
  tokens: string[];
  from?: { pointer: string; tokens: string[] };
  value?: JsonValue;
}

type Fail = (detail: string) => never;

/** Applies `operations` to a copy of `doc` and returns the copy. Throws `PatchError`. */
export function applyJsonPatch(doc: unknown, operations: unknown): JsonValue {
  const checked = checkOperations(operations);
  let result = toOwnedJson(doc, (path, problem) => {
    throw new PatchError({ patchType: 'json-patch', reason: 'not-applicable', path, detail: `the document is not JSON: ${problem}` });
  });
  for (const operation of checked) result = applyOperation(result, operation);
  return result;
}

function checkOperations(operations: unknown): CheckedOperation[] {
  if (!Array.isArray(operations)) {
    throw new PatchError({
      patchType: 'json-patch',
      reason: 'malformed',
      path: '',
      detail: `a JSON Patch is an array of operations, not ${kindOf(operations)}`,
    });
  }
  return operations.map((raw: unknown, index) => checkOperation(raw, index));
}

function checkOperation(raw: unknown, index: number): CheckedOperation {
  const malformed = (detail: string, op?: string, path = ''): never => {
    throw new PatchError({
      patchType: 'json-patch',
      reason: 'malformed',
      path,
      detail,
      operationIndex: index,
      ...(op === undefined ? {} : { op }),
    });
  };
  if (!isObject(raw)) return malformed(`an operation is an object, not ${kindOf(raw)}`);
  const op = ownMember(raw, 'op');
  if (typeof op !== 'string') return malformed('missing "op" member');
  if (!OPERATION_NAMES.has(op))
    return malformed(`unknown op ${JSON.stringify(op)}; expected one of add, remove, replace, move, copy, test`, op);
  const name = op as OperationName;
  const path = ownMember(raw, 'path');
  if (typeof path !== 'string') return malformed('missing "path" member (a string)', name);
  const parsedPath = parsePointer(path);
  if (!parsedPath.ok) return malformed(parsedPath.problem, name, path);
  const checked: CheckedOperation = { index, op: name, path, tokens: parsedPath.tokens };

  if (name === 'move' || name === 'copy') {
    const from = ownMember(raw, 'from');
    if (typeof from !== 'string') return malformed('missing "from" member (a string)', name, path);
    const parsedFrom = parsePointer(from);
    if (!parsedFrom.ok) return malformed(`from: ${parsedFrom.problem}`, name, path);
    if (name === 'move' && isProperPrefix(parsedFrom.tokens, parsedPath.tokens)) {
      return malformed(`cannot move ${from || 'the document root'} into its own child`, name, path);
    }
    checked.from = { pointer: from, tokens: parsedFrom.tokens };
  }
  if (name === 'add' || name === 'replace' || name === 'test') {
    const value = ownMember(raw, 'value');
    if (value === undefined) return malformed('missing "value" member', name, path);
    checked.value = toOwnedJson(value, (at, problem) => malformed(`value${at}: ${problem}`, name, path));
  }
  return checked;
}

function applyOperation(root: JsonValue, operation: CheckedOperation): JsonValue {
  const reason: PatchErrorReason = operation.op === 'test' ? 'test-failed' : 'not-applicable';
  const fail: Fail = (detail) => {
    throw new PatchError({
      patchType: 'json-patch',
      reason,
      path: operation.path,
      detail,
      operationIndex: operation.index,
      op: operation.op,
    });
  };
  const { tokens } = operation;
  switch (operation.op) {
    case 'add':
      return add(root, tokens, operation.value as JsonValue, fail);
    case 'remove':
      return remove(root, tokens, fail);
    case 'replace':
      return replace(root, tokens, operation.value as JsonValue, fail);
    case 'move': {
      const from = operation.from as { pointer: string; tokens: string[] };
      const value = resolve(root, from.tokens, prefixed(fail, 'from'));
      if (from.pointer === operation.path) return root;
      return add(remove(root, from.tokens, prefixed(fail, 'from')), tokens, value, fail);
    }
    case 'copy': {
      const from = operation.from as { pointer: string; tokens: string[] };
      return add(root, tokens, cloneJson(resolve(root, from.tokens, prefixed(fail, 'from'))), fail);
    }
    case 'test': {
      const actual = resolve(root, tokens, fail);
      if (!jsonEqual(actual, operation.value as JsonValue)) {
        fail(`value is ${describeJson(actual)}, test expected ${describeJson(operation.value)}`);
      }
      return root;
    }
  }
}

function add(root: JsonValue, tokens: readonly string[], value: JsonValue, fail: Fail): JsonValue {
  if (tokens.length === 0) return value;
  const { parent, token } = parentOf(root, tokens, fail);
  if (Array.isArray(parent)) {
    if (token === '-') {
      parent.push(value);
      return root;
    }
    const index = arrayIndexOf(token);
    if (index === undefined) fail(`${JSON.stringify(token)} is not an array index (digits, or "-" to append)`);
    if (index > parent.length) fail(`index ${index} is past the end of the array (length ${parent.length})`);
    parent.splice(index, 0, value);
    return root;
  }
  if (isJsonObject(parent)) {
    setOwn(parent, token, value);
    return root;
  }
  return fail(`${pointerOf(tokens.slice(0, -1)) || 'the document root'} is ${kindOf(parent)}, which has no members`);
}

function remove(root: JsonValue, tokens: readonly string[], fail: Fail): JsonValue {
  if (tokens.length === 0) return fail('cannot remove the whole document');
  const { parent, token } = parentOf(root, tokens, fail);
  if (Array.isArray(parent)) {
    parent.splice(existingIndex(parent, token, tokens, fail), 1);
    return root;
  }
  if (isJsonObject(parent) && hasOwn(parent, token)) {
    delete parent[token];
    return root;
  }
  return fail(`${pointerOf(tokens)} does not exist`);
}

function replace(root: JsonValue, tokens: readonly string[], value: JsonValue, fail: Fail): JsonValue {
  if (tokens.length === 0) return value;
  const { parent, token } = parentOf(root, tokens, fail);
  if (Array.isArray(parent)) {
    parent[existingIndex(parent, token, tokens, fail)] = value;
    return root;
  }
  if (isJsonObject(parent) && hasOwn(parent, token)) {
    setOwn(parent, token, value);
    return root;
  }
  return fail(`${pointerOf(tokens)} does not exist`);
}

/** The value a pointer names; fails when any step is missing. */
function resolve(root: JsonValue, tokens: readonly string[], fail: Fail): JsonValue {
  let node = root;
  tokens.forEach((token, i) => {
    const next = childOf(node, token);
    if (next === undefined) fail(missing(node, token, tokens.slice(0, i + 1)));
    node = next;
  });
  return node;
}

function parentOf(root: JsonValue, tokens: readonly string[], fail: Fail): { parent: JsonValue; token: string } {
  return { parent: resolve(root, tokens.slice(0, -1), fail), token: tokens[tokens.length - 1] as string };
}

function childOf(node: JsonValue, token: string): JsonValue | undefined {
  if (Array.isArray(node)) {
    const index = arrayIndexOf(token);
    return index !== undefined && index < node.length ? node[index] : undefined;
  }
  return isJsonObject(node) ? getOwn(node, token) : undefined;
}

function existingIndex(array: JsonValue[], token: string, tokens: readonly string[], fail: Fail): number {
  const index = arrayIndexOf(token);
  if (index === undefined || index >= array.length) fail(missing(array, token, tokens));
  return index;
}

function missing(node: JsonValue, token: string, at: readonly string[]): string {
  if (Array.isArray(node)) {
    const index = arrayIndexOf(token);
    if (index === undefined) return `${JSON.stringify(token)} is not an array index (at ${pointerOf(at)})`;
    return `${pointerOf(at)} does not exist: index ${index} is past the end of the array (length ${node.length})`;
  }
  if (isJsonObject(node)) return `${pointerOf(at)} does not exist`;
  return `${pointerOf(at.slice(0, -1)) || 'the document root'} is ${kindOf(node)}, which has no members`;
}

function prefixed(fail: Fail, label: string): Fail {
  return (detail) => fail(`${label}: ${detail}`);
}

function ownMember(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
