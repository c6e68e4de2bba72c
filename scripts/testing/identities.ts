/**
 * The test server's identities: an administrator (in `system:masters`) and the users a test names,
 * each with a bearer token of its own, authenticated by the reference server's token
 * authenticator and authorized by RBAC over the server's own objects (scripts/access-control.ts).
 */
import { randomBytes } from 'node:crypto';
import { MASTERS_GROUP, type TokenTable, type UserInfo } from '../../runtime/auth/index.js';
import type { AccessControlOptions } from '../access-control.js';

/** The administrator's user name. */
export const ADMIN = 'admin';

export class Identities {
  readonly #tokens = new Map<string, string>();
  readonly #users = new Map<string, UserInfo>();

  /** `users`: name to groups (every user is also in `system:authenticated`, as upstream adds). */
  constructor(users: Readonly<Record<string, readonly string[]>>) {
    if (ADMIN in users) throw new TypeError(`"${ADMIN}" is the test server's administrator; name your users otherwise`);
    this.#add(ADMIN, [MASTERS_GROUP]);
    for (const [name, groups] of Object.entries(users)) this.#add(name, groups);
  }

  #add(username: string, groups: readonly string[]): void {
    const token = randomBytes(24).toString('base64url');
    this.#tokens.set(username, token);
    this.#users.set(token, { username, groups: [...groups], extra: {} });
  }

  /** The bearer token of a user; a name that was not configured is an error naming the known ones. */
  token(user: string): string {
    const token = this.#tokens.get(user);
    if (token === undefined) throw new TypeError(`the test server has no user "${user}"; it has ${[...this.#tokens.keys()].join(', ')}`);
    return token;
  }

  names(): string[] {
    return [...this.#tokens.keys()];
  }

  /** The access control of a server that knows these identities: token authentication and RBAC. */
  accessControl(): AccessControlOptions {
    const tokens: TokenTable = { users: this.#users, warnings: [] };
    return { tokens, authorizationModes: ['RBAC'] };
  }
}
