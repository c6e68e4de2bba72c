import type { RequestAttributes, RequestContext, UserInfo } from '../context.js';

/** The user of a request no authenticator recognised, as upstream's anonymous authentication. */
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** The attributes of a request in flight (after the negotiate and authenticate stages), as upstream's RequestInfo resolves them. */
export function attributesOf(ctx: RequestContext): RequestAttributes {
  const user = ctx.user ?? ANONYMOUS;
  const { method, path, query } = ctx.req;
  const t = ctx.target;
  if (!t) {
    return {
      user,
      verb: method.toLowerCase(),
      resourceRequest: false,
      group: '',
      version: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      path,
    };
  }
  return {
    user,
    verb: verbOf(method, t.name !== undefined, query),
    resourceRequest: true,
    group: t.resource.group,
    version: t.resource.version,
    resource: t.resource.resource,
    subresource: t.subresource ?? '',
    namespace: t.namespace ?? '',
    name: t.name ?? '',
    path,
  };
}

/** The API verb of a resource request: a GET is get, list or watch; a DELETE of a collection is deletecollection. */
function verbOf(method: string, named: boolean, query: URLSearchParams): string {
  switch (method) {
    case 'GET':
    case 'HEAD': {
      const watch = query.get('watch');
      if (watch !== null && watch !== 'false' && watch !== '0') return 'watch';
      return named ? 'get' : 'list';
    }
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}
