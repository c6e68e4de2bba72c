/**
 * The test server's identities: an administrator (in `system:masters`) and the users a test names,
 * each with a bearer token, authorized by RBAC over the server's own objects
 * (reference/access-control.ts). Tokens are checked by an authenticator of the test server's own,
 * so a test can also issue a token that expires by the server's clock.
 */
import { randomBytes } from 'node:crypto';
import { type Authenticator, type AuthenticatorResult, MASTERS_GROUP, type UserInfo } from '../../runtime/auth/index.js';
import type { AccessControlOptions } from '../access-control.js';

/** The administrator's user name. */
export const ADMIN = 'admin';

interface IssuedToken {
  user: UserInfo;
  /** Milliseconds of the clock after which the token is refused; none: it never expires. */
  expiresAt?: number;
}

export class Identities implements Authenticator {
  readonly name = 'test-server-tokens';
  readonly #groups = new Map<string, readonly string[]>();
  /** Each user's standing token. */
  readonly #standing = new Map<string, string>();
  readonly #issued = new Map<string, IssuedToken>();
  readonly #now: () => number;

  /** `users`: name to groups; `now`: the server's clock, in milliseconds. */
  constructor(users: Readonly<Record<string, readonly string[]>>, now: () => number) {
    if (ADMIN in users) throw new TypeError(`"${ADMIN}" is the test server's administrator; name your users otherwise`);
    this.#now = now;
    this.#groups.set(ADMIN, [MASTERS_GROUP]);
    for (const [name, groups] of Object.entries(users)) this.#groups.set(name, groups);
    for (const name of this.#groups.keys()) this.#standing.set(name, this.issue(name));
  }

  /** A new token of `user`; with `ttlMs`, refused (401) once the clock has passed its lifetime. */
  issue(user: string, ttlMs?: number): string {
    const groups = this.#groups.get(user);
    if (groups === undefined) throw new TypeError(`the test server has no user "${user}"; it has ${[...this.#groups.keys()].join(', ')}`);
    const token = randomBytes(24).toString('base64url');
    this.#issued.set(token, {
      user: { username: user, groups: [...groups], extra: {} },
      ...(ttlMs === undefined ? {} : { expiresAt: this.#now() + ttlMs }),
    });
    return token;
  }

  /** The standing (never expiring) token of a user; a name that was not configured is an error naming the known ones. */
  token(user: string): string {
    const token = this.#standing.get(user);
    if (token === undefined) throw new TypeError(`the test server has no user "${user}"; it has ${[...this.#groups.keys()].join(', ')}`);
    return token;
  }

  authenticate(c: { bearerToken?: string }): AuthenticatorResult {
    const issued = c.bearerToken === undefined ? undefined : this.#issued.get(c.bearerToken);
    if (!issued) return { outcome: 'skip' };
    if (issued.expiresAt !== undefined && this.#now() >= issued.expiresAt) return { outcome: 'reject', reason: 'token expired' };
    return { outcome: 'user', user: issued.user };
  }

  /** The access control of a server that knows these identities: their tokens and RBAC. */
  accessControl(): AccessControlOptions {
    return { authenticators: [this], authorizationModes: ['RBAC'] };
  }
}
