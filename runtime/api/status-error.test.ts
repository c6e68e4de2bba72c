import { describe, expect, it } from 'vitest';
import {
  deletedStatus,
  successStatus,
  invalidPatch,
  methodNotAllowed,
  objectModified,
  pathNotFound,
  resourceVersionRequired,
  strictDecodingError,
  tooLarge,
  unexpectedError,
  type StatusError,
  alreadyExists,
  applyConflict,
  asStatusError,
  badRequest,
  cannotBeHandledAs,
  conflict,
  fieldInvalid,
  fieldRequired,
  fieldTypeInvalid,
  forbidden,
  generateNameConflict,
  gone,
  internalError,
  invalid,
  isStatusError,
  methodNotSupported,
  notAcceptable,
  notFound,
  requestEntityTooLarge,
  resourceExpired,
  serverTimeout,
  serviceUnavailable,
  statusErrorFromObject,
  timeout,
  tooLargeResourceVersion,
  tooManyRequests,
  tooOldResourceVersion,
  unauthorized,
  unsupportedMediaType,
} from './index.js';

const pods = { group: '', resource: 'pods' };
const deployments = { group: 'apps', resource: 'deployments' };

describe('StatusError', () => {
  it('is an Error with a name and a type guard', () => {
    const e = notFound(pods, 'web');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('StatusError');
    expect(isStatusError(e)).toBe(true);
    expect(isStatusError(new Error('x'))).toBe(false);
    expect(isStatusError({ code: 404 })).toBe(false);
  });

  it('renders the wire Status with keys in the real order and empty fields omitted', () => {
    const status = notFound(deployments, 'web').toStatus();
    expect(JSON.stringify(status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}',
    );
    expect(badRequest('nope').toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'nope',
      reason: 'BadRequest',
      code: 400,
    });
  });

  it('serializes cause types under the key `reason`, as the real system', () => {
    const status = invalid({ group: '', kind: 'Pod' }, 'web', [fieldRequired('spec.containers')]).toStatus();
    expect(status.details?.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }]);
  });

  it('round-trips through the wire form', () => {
    const original = tooLargeResourceVersion(90, 42, 1);
    const back = statusErrorFromObject(JSON.parse(JSON.stringify(original.toStatus())));
    expect(back?.code).toBe(504);
    expect(back?.reason).toBe('Timeout');
    expect(back?.message).toBe(original.message);
    expect(back?.findCause('ResourceVersionTooLarge')?.message).toBe('Too large resource version');
    expect(back?.details?.retryAfterSeconds).toBe(1);
    expect(statusErrorFromObject({ kind: 'Pod', apiVersion: 'v1' })).toBeUndefined();
    expect(statusErrorFromObject({ kind: 'Status', apiVersion: 'v1', status: 'Success' })).toBeUndefined();
    expect(statusErrorFromObject('Status')).toBeUndefined();
  });

  it('wraps unknown errors as 500', () => {
    const e = asStatusError(new TypeError('x is undefined'));
    expect(e.code).toBe(500);
    expect(e.message).toBe('Internal error occurred: x is undefined');
    const known = conflict(pods, 'a', 'b');
    expect(asStatusError(known)).toBe(known);
  });
});

describe('constructors', () => {
  it.each<[string, StatusError, number, string, string]>([
    ['notFound', notFound(pods, 'web'), 404, 'NotFound', 'pods "web" not found'],
    ['alreadyExists', alreadyExists(deployments, 'web'), 409, 'AlreadyExists', 'deployments.apps "web" already exists'],
    [
      'generateNameConflict',
      generateNameConflict(pods, 'web-x7k2q', 1),
      409,
      'AlreadyExists',
      'pods "web-x7k2q" already exists, the server was not able to generate a unique name for the object',
    ],
    [
      'conflict',
      conflict(pods, 'web', 'the object has been modified; please apply your changes to the latest version and try again'),
      409,
      'Conflict',
      'Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again',
    ],
    ['badRequest', badRequest('continue: Invalid value'), 400, 'BadRequest', 'continue: Invalid value'],
    ['gone', gone('gone away'), 410, 'Gone', 'gone away'],
    ['resourceExpired', resourceExpired('too old'), 410, 'Expired', 'too old'],
    ['tooOldResourceVersion', tooOldResourceVersion(5, 120), 410, 'Expired', 'too old resource version: 5 (120)'],
    ['tooLargeResourceVersion', tooLargeResourceVersion(90, 42, 1), 504, 'Timeout', 'Timeout: Too large resource version: 90, current: 42'],
    ['timeout', timeout('request did not complete within 60s', 2), 504, 'Timeout', 'Timeout: request did not complete within 60s'],
    [
      'serverTimeout',
      serverTimeout(pods, 'create', 2),
      500,
      'ServerTimeout',
      'The create operation against pods could not be completed at this time, please try again.',
    ],
    [
      'methodNotSupported',
      methodNotSupported(deployments, 'proxy'),
      405,
      'MethodNotAllowed',
      'proxy is not supported on resources of kind "deployments.apps"',
    ],
    [
      'notAcceptable',
      notAcceptable(['application/json', 'application/yaml']),
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, application/yaml',
    ],
    [
      'unsupportedMediaType',
      unsupportedMediaType(['application/json']),
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json',
    ],
    [
      'requestEntityTooLarge',
      requestEntityTooLarge('limit is 3145728'),
      413,
      'RequestEntityTooLarge',
      'Request entity too large: limit is 3145728',
    ],
    [
      'forbidden',
      forbidden(pods, 'web', 'User "bob" cannot get resource "pods"'),
      403,
      'Forbidden',
      'pods "web" is forbidden: User "bob" cannot get resource "pods"',
    ],
    ['forbidden without name', forbidden(pods, '', new Error('no')), 403, 'Forbidden', 'pods is forbidden: no'],
    ['forbidden without resource', forbidden({ group: '', resource: '' }, '', 'no'), 403, 'Forbidden', 'forbidden: no'],
    ['unauthorized', unauthorized(), 401, 'Unauthorized', 'not authorized'],
    ['unauthorized with reason', unauthorized('token expired'), 401, 'Unauthorized', 'token expired'],
    ['tooManyRequests', tooManyRequests('slow down', 3), 429, 'TooManyRequests', 'slow down'],
    ['internalError', internalError(new Error('disk full')), 500, 'InternalError', 'Internal error occurred: disk full'],
    ['serviceUnavailable', serviceUnavailable('starting up'), 503, 'ServiceUnavailable', 'starting up'],
    [
      'objectModified',
      objectModified(pods, 'web'),
      409,
      'Conflict',
      'Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again',
    ],
    [
      'methodNotAllowed',
      methodNotAllowed('PUT', 'a collection takes GET, POST and DELETE'),
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource (PUT: a collection takes GET, POST and DELETE)',
    ],
    [
      'pathNotFound',
      pathNotFound('the server could not find the requested resource'),
      404,
      'NotFound',
      'the server could not find the requested resource',
    ],
    ['tooLarge', tooLarge(4096), 413, 'RequestEntityTooLarge', 'the request body is larger than the limit of 4096 bytes'],
    [
      'unexpectedError',
      unexpectedError(new Error('boom')),
      500,
      'InternalError',
      'an error on the server ("boom") has prevented the request from succeeding',
    ],
    [
      'resourceVersionRequired',
      resourceVersionRequired({ group: 'stable.example.svc.io', kind: 'CronTab' }, 'a'),
      422,
      'Invalid',
      'CronTab.stable.example.svc.io "a" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    ],
    ['invalidPatch', invalidPatch('the patched document is not an object'), 422, 'Invalid', 'the patched document is not an object'],
    [
      'strictDecodingError',
      strictDecodingError(['spec.x'], ['spec.y']),
      400,
      'BadRequest',
      'strict decoding error: unknown field "spec.x", duplicate field "spec.y"',
    ],
  ])('%s', (_name, error, code, reason, message) => {
    expect(error.code).toBe(code);
    expect(error.reason).toBe(reason);
    expect(error.message).toBe(message);
    expect(error.toStatus().code).toBe(code);
  });

  it('carries details as the real system', () => {
    expect(notFound(deployments, 'web').details).toMatchObject({ group: 'apps', kind: 'deployments', name: 'web' });
    expect(tooManyRequests('x', 3).toStatus().details).toEqual({ retryAfterSeconds: 3 });
    expect(tooLargeResourceVersion(9, 3, 1).toStatus().details).toEqual({
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    });
    expect(internalError('boom').toStatus().details).toEqual({ causes: [{ message: 'boom' }] });
    expect(timeout('x').toStatus().details).toEqual({});
    expect(badRequest('x').toStatus().details).toBeUndefined();
    expect(
      cannotBeHandledAs('Deployment', 'v1', fieldTypeInvalid('spec.replicas', 'string', 'must be of type integer')).toStatus(),
    ).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'Deployment in version "v1" cannot be handled as a Deployment: spec.replicas: Invalid value: "string": must be of type integer',
      details: {
        causes: [
          {
            reason: 'FieldValueTypeInvalid',
            message: 'spec.replicas: Invalid value: "string": must be of type integer',
            field: 'spec.replicas',
          },
        ],
      },
    });
    expect(serverTimeout(pods, 'get', 1).details).toMatchObject({ kind: 'pods', name: 'get', retryAfterSeconds: 1 });
  });
});

describe('invalid', () => {
  const pod = { group: '', kind: 'Pod' };

  it('names one field error after the kind and name', () => {
    const e = invalid(pod, 'Web', [fieldInvalid('metadata.name', 'Web', 'must be lowercase')]);
    expect(e.code).toBe(422);
    expect(e.reason).toBe('Invalid');
    expect(e.message).toBe('Pod "Web" is invalid: metadata.name: Invalid value: "Web": must be lowercase');
    expect(e.details).toEqual({
      group: '',
      kind: 'Pod',
      name: 'Web',
      causes: [{ type: 'FieldValueInvalid', message: 'Invalid value: "Web": must be lowercase', field: 'metadata.name' }],
    });
  });

  it('brackets several field errors and uses the qualified kind', () => {
    const e = invalid({ group: 'apps', kind: 'Deployment' }, 'web', [fieldRequired('spec.selector'), fieldRequired('spec.template')]);
    expect(e.message).toBe('Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template: Required value]');
    expect(e.details?.causes).toHaveLength(2);
  });

  it('has no colon part without field errors', () => {
    expect(invalid(pod, 'web', []).message).toBe('Pod "web" is invalid');
  });
});

describe('applyConflict', () => {
  it('reports one conflict on one line', () => {
    const e = applyConflict([{ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', field: '.spec.replicas' }]);
    expect(e.code).toBe(409);
    expect(e.reason).toBe('Conflict');
    expect(e.message).toBe('Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas');
    expect(e.details?.causes).toEqual([
      { type: 'FieldManagerConflict', message: 'conflict with "kubectl" using apps/v1', field: '.spec.replicas' },
    ]);
  });

  it('groups several conflicts by manager, sorted', () => {
    const e = applyConflict([
      { manager: 'zed', operation: 'Apply', field: '.spec.a' },
      { manager: 'alpha', operation: 'Update', apiVersion: 'v1', time: '2024-01-02T03:04:05Z', field: '.spec.b' },
      { manager: 'zed', operation: 'Apply', field: '.spec.c' },
    ]);
    expect(e.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "alpha" using v1 at 2024-01-02T03:04:05Z:\n- .spec.b\nconflicts with "zed":\n- .spec.a\n- .spec.c',
    );
    expect(e.details?.causes?.map((c) => c.field)).toEqual(['.spec.a', '.spec.b', '.spec.c']);
  });

  it('names the subresource of the other manager', () => {
    const e = applyConflict([{ manager: 'ctl', operation: 'Apply', subresource: 'status', field: '.status.phase' }]);
    expect(e.message).toBe('Apply failed with 1 conflict: conflict with "ctl" with subresource "status": .status.phase');
  });
});

describe('success Statuses', () => {
  it('names what a delete removed, and carries the code an eviction answers with', () => {
    expect(deletedStatus(pods, 'web', 'u-1')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'web', kind: 'pods', uid: 'u-1' },
    });
    // A named group stays.
    expect(deletedStatus({ group: 'apps', resource: 'deployments' }, 'd', 'u-2').details).toEqual({
      name: 'd',
      group: 'apps',
      kind: 'deployments',
      uid: 'u-2',
    });
    expect(successStatus({ code: 201 })).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  });
});
