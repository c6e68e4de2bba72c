/**
 * Files and folders only the server's user may use: the store, generated keys, certificates and
 * generated code. New ones are created owner-only from the start (never widened, then narrowed,
 * so no other user can open one in between); existing ones are checked before use, because on a
 * shared machine another user may have made them first.
 */
import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';

/** A file or folder svckit will not use: another user's, writable by others, or not what it should be. */
export class NotPrivateError extends Error {
  override readonly name = 'NotPrivateError';
}

/** Group and other permission bits. */
const OTHERS_ANY = 0o077;
const OTHERS_WRITE = 0o022;

/** This process's user; undefined where there are no POSIX owners (Windows): checks then rest on the file system's ACLs. */
function currentUid(): number | undefined {
  return process.getuid?.();
}

function mode(s: Stats): string {
  return `0${(s.mode & 0o777).toString(8)}`;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function checkOwner(path: string, s: Stats, uid: number | undefined): void {
  if (uid !== undefined && s.uid !== uid) {
    throw new NotPrivateError(
      `${path} belongs to user ${s.uid}, not to this user (${uid}); svckit refuses to use it: remove it or choose another path`,
    );
  }
}

/**
 * Creates `dir` and its missing parents with mode 0700. An existing folder must be a real folder
 * (not a link) of this user that no other user may write; one that others may only read is
 * narrowed to 0700. NotPrivateError otherwise.
 */
export function privateFolder(dir: string, uid = currentUid()): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const s = lstatSync(dir);
  if (!s.isDirectory()) throw new NotPrivateError(`${dir} is not a folder (a link or a file is there); svckit refuses to use it`);
  checkOwner(dir, s, uid);
  if (s.mode & OTHERS_WRITE) {
    throw new NotPrivateError(
      `${dir} may be written by other users (mode ${mode(s)}); svckit refuses to use it: remove it or run chmod 700 on it`,
    );
  }
  if (s.mode & OTHERS_ANY) chmodSync(dir, 0o700);
}

/**
 * Makes `path` a file only this user may read: when absent, an empty one with mode 0600 (exclusive
 * create that follows no link, so a link planted there is refused); when present, it must be a
 * regular file of this user, and group and other bits are removed (`narrowed` is told). Returns
 * whether the file was there before.
 */
export function privateFile(path: string, narrowed: (line: string) => void, uid = currentUid()): boolean {
  if (narrowExisting(path, narrowed, uid)) return true;
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0), 0o600));
    return false;
  } catch (e) {
    // Made by someone else between the check and the create: check what is there now.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST' && narrowExisting(path, narrowed, uid)) return true;
    throw e;
  }
}

/** As {@link privateFile} for a file that may be absent and is not created here (SQLite's -wal). */
export function narrowExisting(path: string, narrowed: (line: string) => void, uid = currentUid()): boolean {
  const s = statOrUndefined(path);
  if (s === undefined) return false;
  if (!s.isFile()) throw new NotPrivateError(`${path} is not a regular file (a link or a folder is there); svckit refuses to use it`);
  checkOwner(path, s, uid);
  if (s.mode & OTHERS_ANY) {
    chmodSync(path, 0o600);
    narrowed(`${path} was readable by other users (mode ${mode(s)}); its mode is now 0600`);
  }
  return true;
}

/**
 * Checks a file holding a secret svckit made (a generated key): it must be a regular file of this
 * user that no other user could read. One that others could read is refused, not narrowed: its
 * secret must be taken as known.
 */
export function checkSecretFile(path: string, uid = currentUid()): void {
  const s = lstatSync(path);
  if (!s.isFile()) throw new NotPrivateError(`${path} is not a regular file (a link or a folder is there); svckit refuses to use it`);
  checkOwner(path, s, uid);
  if (s.mode & OTHERS_ANY) {
    throw new NotPrivateError(
      `${path} may be read by other users (mode ${mode(s)}), so the key in it must be taken as known; remove it and svckit makes a new one`,
    );
  }
}
