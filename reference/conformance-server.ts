import { randomBytes } from 'node:crypto';
import { MASTERS_GROUP, type TokenTable } from '../runtime/auth/index.js';
import { type ReferenceServerOptions, type RunningServer, startReferenceServer } from './reference-server.js';

/**
 * The reference server as `svckit conformance` starts it in-process: RBAC authorizes and an
 * administrator token (in `system:masters`) is what the kit runs as, so the authorization
 * scenarios judge the real chain while every other scenario runs as an administrator.
 */
export async function startConformanceServer(options: ReferenceServerOptions): Promise<RunningServer & { token: string }> {
  const token = randomBytes(24).toString('hex');
  const tokens: TokenTable = {
    users: new Map([[token, { username: 'conformance-admin', groups: [MASTERS_GROUP], extra: {} }]]),
    warnings: [],
  };
  const running = await startReferenceServer({ ...options, access: { tokens, authorizationModes: ['RBAC'] } });
  return { ...running, token };
}
