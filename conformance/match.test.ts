import { describe, expect, it } from 'vitest';
import { select } from './jsonpath.js';
import { checkError, checkHeader, checkPath, checkProtobuf, checkResponse, headerItems, matchEvents, partialMatch } from './match.js';
import { encodeEnvelope } from './protobuf-envelope.js';
import type { HttpResult, Json, PathCheck } from './types.js';

const doc: Json = {
  kind: 'ConfigMapList',
  metadata: { resourceVersion: '42', continue: '' },
  items: [{ metadata: { name: 'a', labels: { env: 'prod' } }, data: { k: 'v' } }, { metadata: { name: 'b', labels: { env: 'dev' } } }],
};

describe('select (JSONPath subset)', () => {
  it('reads keys, indexes, wildcards, filters and quoted keys', () => {
    expect(select(doc, '$.metadata.resourceVersion')).toEqual(['42']);
    expect(select(doc, '$.items[1].metadata.name')).toEqual(['b']);
    expect(select(doc, '$.items[-1].metadata.name')).toEqual(['b']);
    expect(select(doc, '$.items[*].metadata.name')).toEqual(['a', 'b']);
    expect(select(doc, "$.items[?(@.metadata.name=='b')].metadata.labels.env")).toEqual(['dev']);
    expect(select(doc, "$.items[?(@.metadata.name!='b')].metadata.name")).toEqual(['a']);
    expect(select(doc, '$.items[?(@.data)].metadata.name')).toEqual(['a']);
    expect(select({ m: { 'f:a.b': 1 } }, "$.m['f:a.b']")).toEqual([1]);
    expect(select(doc, '$.items.length')).toEqual([2]);
    expect(select(doc, '$.nothing.here')).toEqual([]);
  });

  it('refuses what it cannot read', () => {
    expect(() => select(doc, 'items')).toThrow(/must start with \$/);
    expect(() => select(doc, '$.items[?bad]')).toThrow(/cannot read/);
  });
});

describe('partialMatch', () => {
  it('matches a subset of keys and fails on a differing value', () => {
    expect(partialMatch({ kind: 'ConfigMapList', metadata: {} }, doc)).toBeNull();
    expect(partialMatch({ kind: 'PodList' }, doc)).toMatch(/\$\.kind: expected "PodList", found "ConfigMapList"/);
  });

  it('matches lists element by element with equal length', () => {
    expect(partialMatch([{ metadata: { name: 'a' } }, {}], select(doc, '$.items')[0])).toBeNull();
    expect(partialMatch([{ metadata: { name: 'a' } }], select(doc, '$.items')[0])).toMatch(/expected 1 items, found 2/);
  });

  it.each<[string, Json, Json | undefined, boolean]>([
    ['$matches', { $matches: '^4\\d$' }, '42', true],
    ['$matches', { $matches: '^4\\d$' }, '7', false],
    ['$exists', { $exists: true }, 'x', true],
    ['$exists', { $exists: true }, undefined, false],
    ['$absent', { $absent: true }, undefined, true],
    ['$absent', { $absent: true }, 'x', false],
    ['$oneOf', { $oneOf: ['a', 'b'] }, 'b', true],
    ['$oneOf', { $oneOf: ['a', 'b'] }, 'c', false],
    ['$contains', { $contains: 'get' }, ['list', 'get'], true],
    ['$contains', { $contains: 'get' }, ['list'], false],
    ['$notEquals', { $notEquals: 'a' }, 'b', true],
    ['$notEquals', { $notEquals: 'a' }, 'a', false],
    ['$empty', { $empty: true }, '', true],
    ['$empty', { $empty: true }, 'x', false],
    ['$any', { $any: true }, 17, true],
  ])('operator %s (%j against %j) passes: %s', (_name, expected, actual, passes) => {
    expect(partialMatch(expected, actual) === null).toBe(passes);
  });
});

describe('checkPath', () => {
  it.each<[PathCheck, boolean]>([
    [{ path: '$.metadata.resourceVersion', equals: '42' }, true],
    [{ path: '$.metadata.resourceVersion', equals: '43' }, false],
    [{ path: '$.metadata.resourceVersion', notEquals: '43' }, true],
    [{ path: '$.metadata.resourceVersion', notEquals: '42' }, false],
    [{ path: '$.metadata.resourceVersion', matches: '^\\d+$' }, true],
    [{ path: '$.metadata.resourceVersion', matches: '^x' }, false],
    [{ path: '$.metadata.resourceVersion', exists: true }, true],
    [{ path: '$.metadata.remainingItemCount', exists: true }, false],
    [{ path: '$.metadata.remainingItemCount', absent: true }, true],
    [{ path: '$.metadata.resourceVersion', absent: true }, false],
    [{ path: '$.metadata.continue', empty: true }, true],
    [{ path: '$.metadata.missing', empty: true }, true],
    [{ path: '$.metadata.resourceVersion', empty: true }, false],
    [{ path: '$.items', length: 2 }, true],
    [{ path: '$.items', length: 3 }, false],
    [{ path: '$.items', minLength: 1 }, true],
    [{ path: '$.items', minLength: 3 }, false],
    [{ path: '$.items[*].metadata.labels.env', every: { $matches: '^(prod|dev)$' } }, true],
    [{ path: '$.items[*].metadata.labels.env', every: 'prod' }, false],
    [{ path: '$.items[*].metadata.name', contains: 'b' }, true],
    [{ path: '$.items[*].metadata.name', contains: 'c' }, false],
    [{ path: '$.items[*].metadata.name', notContains: 'c' }, true],
    [{ path: '$.items[*].metadata.name', notContains: 'a' }, false],
    [{ path: '$.items.length', gte: 2, lte: 2 }, true],
    [{ path: '$.items.length', gte: 3 }, false],
    [{ path: '$.metadata.resourceVersion', type: 'string' }, true],
    [{ path: '$.metadata.resourceVersion', type: 'number' }, false],
    [{ path: '$.items[*].metadata.name', equals: ['a', 'b'] }, true],
  ])('%j passes: %s', (check, passes) => {
    const problem = checkPath(doc, check);
    expect(problem === null, problem ?? '').toBe(passes);
  });

  it('says what it found when a check fails', () => {
    expect(checkPath(doc, { path: '$.items', length: 3 })).toMatch(/\$\.items: expected length 3, found 2/);
  });
});

describe('headers', () => {
  const headers = { warning: ['299 - "unknown field \\"a, b\\""', '299 - "duplicate field \\"c\\""'], 'content-type': 'application/json' };

  it('splits items at commas outside quotes', () => {
    expect(headerItems(headers.warning)).toHaveLength(2);
    expect(headerItems('299 - "x", 299 - "y, z"')).toEqual(['299 - "x"', '299 - "y, z"']);
  });

  it.each<[string, Parameters<typeof checkHeader>[2], boolean]>([
    ['content-type', 'present', true],
    ['retry-after', 'present', false],
    ['retry-after', 'absent', true],
    ['content-type', 'absent', false],
    ['content-type', { equals: 'Application/JSON' }, true],
    ['content-type', { equals: 'text/plain' }, false],
    ['warning', { matches: 'duplicate field' }, true],
    ['warning', { matches: '^nothing' }, false],
    ['warning', { count: 2 }, true],
    ['warning', { count: 1 }, false],
    ['retry-after', { optional: true, matches: '^\\d+$' }, true],
  ])('%s %j passes: %s', (name, exp, passes) => {
    expect(checkHeader(headers, name, exp) === null).toBe(passes);
  });
});

describe('checkError', () => {
  const status: Json = {
    kind: 'Status',
    status: 'Failure',
    code: 422,
    reason: 'Invalid',
    message: 'ConfigMap "Bad" is invalid: metadata.name: Invalid value',
    details: { name: 'Bad', causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name' }] },
  };

  it('matches reason, code, message and causes, and names what differs', () => {
    expect(
      checkError(status, {
        reason: 'Invalid',
        code: 422,
        message: 'is invalid',
        causes: [{ field: 'metadata.name' }],
        details: { name: 'Bad' },
      }),
    ).toBeNull();
    expect(checkError(status, { reason: 'NotFound' })).toMatch(/reason: expected "NotFound", found "Invalid"/);
    expect(checkError(status, { code: 400 })).toMatch(/code: expected 400/);
    expect(checkError(status, { message: 'not found' })).toMatch(/does not match/);
    expect(checkError(status, { notMessage: 'invalid' })).toMatch(/should not match/);
    expect(checkError(status, { causes: [{ field: 'spec' }] })).toMatch(/none matches/);
    expect(checkError({ kind: 'ConfigMap' }, {})).toMatch(/expected a Status error body/);
  });
});

describe('checkProtobuf', () => {
  it('reads the envelope and refuses a body without the magic prefix', () => {
    const body = encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap', raw: Buffer.from([0x0a, 0x00]) });
    expect(checkProtobuf(body, { apiVersion: 'v1', kind: 'ConfigMap' })).toBeNull();
    expect(checkProtobuf(body, { kind: 'Secret' })).toMatch(/kind: expected "Secret", found "ConfigMap"/);
    expect(checkProtobuf(Buffer.from('{"kind":"ConfigMap"}'), {})).toMatch(/missing the magic prefix/);
    expect(checkProtobuf(encodeEnvelope({ apiVersion: 'v1', kind: 'ConfigMap' }), {})).toMatch(/raw field \(2\) is empty/);
  });
});

describe('checkResponse', () => {
  const res = (status: number, json: Json): HttpResult => ({
    status,
    headers: { 'content-type': 'application/json' },
    text: JSON.stringify(json),
    raw: Buffer.from(JSON.stringify(json)),
    json,
  });

  it('checks the status first and quotes a Status reason', () => {
    expect(checkResponse(res(404, { kind: 'Status', reason: 'NotFound', message: 'gone' }), { status: [200] })).toBe(
      'status: expected 200, got 404 (NotFound: gone)',
    );
  });

  it('checks body, paths and text', () => {
    const ok = res(200, doc);
    expect(
      checkResponse(ok, {
        status: [200],
        body: { kind: 'ConfigMapList' },
        at: [{ path: '$.items', length: 2 }],
        text: { matches: 'ConfigMapList' },
      }),
    ).toBeNull();
    expect(checkResponse(ok, { body: { kind: 'PodList' } })).toMatch(/^body \$\.kind/);
    expect(checkResponse(ok, { text: { notMatches: 'ConfigMap' } })).toMatch(/should not match/);
    expect(checkResponse({ ...ok, json: undefined, text: 'plain' }, { body: {} })).toMatch(/expected a JSON body/);
  });
});

describe('matchEvents', () => {
  const ev = (type: string, name: string): { type: string; object: Json } => ({ type, object: { metadata: { name } } });

  it('matches in order and names the first differing event', () => {
    const got = [ev('ADDED', 'a'), ev('MODIFIED', 'a'), ev('DELETED', 'a')];
    expect(
      matchEvents([{ type: 'ADDED' }, { type: 'MODIFIED' }, { type: 'DELETED', object: { metadata: { name: 'a' } } }], got),
    ).toBeNull();
    expect(matchEvents([{ type: 'ADDED' }, { type: 'DELETED' }], got)).toMatch(/event 1: expected type DELETED, got MODIFIED/);
    expect(matchEvents([{ type: 'ADDED' }, { type: 'MODIFIED' }, { type: 'DELETED' }, { type: 'ADDED' }], got)).toMatch(
      /event 3.*received nothing more/,
    );
  });

  it('matches an anyOrder group as a set', () => {
    const got = [ev('ADDED', 'b'), ev('ADDED', 'a'), ev('MODIFIED', 'a')];
    const group = {
      anyOrder: [
        { type: 'ADDED', object: { metadata: { name: 'a' } } },
        { type: 'ADDED', object: { metadata: { name: 'b' } } },
      ],
    };
    expect(matchEvents([group, { type: 'MODIFIED' }], got)).toBeNull();
    expect(matchEvents([{ anyOrder: [{ type: 'ADDED', object: { metadata: { name: 'c' } } }, { type: 'ADDED' }] }], got)).toMatch(
      /any order/,
    );
  });
});
