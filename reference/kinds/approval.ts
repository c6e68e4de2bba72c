import { type JsonApiObject, notFound, objectModified } from '../../runtime/api/index.js';
import { userInfoObject } from '../../runtime/auth/index.js';
import {
  ANONYMOUS,
  type KindHook,
  parseRevision,
  readCurrent,
  type SubresourceHandler,
  writeOptions,
  writeUpdate,
} from '../../runtime/server/index.js';

/**
 * `certificatesigningrequests/<name>/approval`, as upstream's approval strategy (what `kubectl
 * certificate approve|deny` PUTs): only `status.conditions` is taken from the request (the
 * Approved, Denied or Failed decision); the spec, the issued certificate and the metadata stay as
 * stored. Validation (Approved and Denied exclude each other) and admission run as for any update.
 */
export const approveCertificateRequest: SubresourceHandler = {
  methods: ['PUT'],
  async handle(ctx, t, body) {
    const requested = body!.object;
    const current = await readCurrent(ctx, t.resource, t.namespace, t.name!);
    if (!current) throw notFound(t.resource, t.name!);
    const rv = requested.metadata?.resourceVersion;
    if (rv !== undefined && rv !== '' && parseRevision(rv) !== current.kv.modRevision) throw objectModified(t.resource, t.name!);
    const old = current.object;
    const conditions = (requested.status as { conditions?: unknown } | undefined)?.conditions;
    const status = { ...(old.status as object | undefined) } as Record<string, unknown>;
    if (conditions === undefined) delete status.conditions;
    else status.conditions = conditions;
    const next: JsonApiObject = { ...structuredClone(old), status };
    return writeUpdate(ctx, {
      t,
      old,
      next,
      modRevision: current.kv.modRevision,
      duplicates: body!.duplicates,
      opts: writeOptions(ctx.req.query, ctx.req.method),
    });
  },
};

/**
 * The requestor of a CertificateSigningRequest, as upstream's PrepareForCreate: `spec.username`,
 * `uid`, `groups` and `extra` are the authenticated user who created it, whatever the body said
 * (a signer relies on them). Declared by the kind as the hook `csr-requestor`.
 */
export function certificateRequestor(): KindHook {
  return {
    prepareCreate(object, ctx) {
      const user = ctx.user ?? ANONYMOUS;
      const { username: _u, uid: _i, groups: _g, extra: _e, ...spec } = (object.spec ?? {}) as Record<string, unknown>;
      object.spec = { ...spec, ...userInfoObject(user) };
    },
  };
}
