/**
 * The default backend: the MVCC log as one SQLite table, as kine (etcd on SQL) lays it out. Each
 * write is one transaction that checks its condition and appends a row; WAL with synchronous=FULL
 * makes the row durable before the promise resolves. Watches are fed in-process after each commit,
 * so exactly one process may write the file: the connection takes an exclusive lock and a second
 * opener fails with "database is locked" instead of silently splitting the watch stream.
 */
import Database from 'better-sqlite3';
import { narrowExisting, privateFile } from '../files/index.js';
import { compareKeys, prefixEnd } from './key-order.js';
import { type LogEntry, LogStore, type RevisionLog } from './log-store.js';
import { NewestEntries } from './newest-entries.js';
import type { StoreOptions } from './types.js';

/** The SQLite settings a store runs with (diagnostics and tests). */
export interface SqlitePragmas {
  journalMode: string;
  /** 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA. */
  synchronous: number;
  lockingMode: string;
}

export class SqliteStore extends LogStore {
  readonly #log: SqliteLog;

  /**
   * Opens (creating when absent) the database file at `path`; its parent folder must exist. The
   * file and SQLite's side files are this user's only (0600; see {@link privateDatabaseFiles}).
   */
  constructor(path: string, options: StoreOptions = {}) {
    const log = new SqliteLog(path);
    super(log, options);
    this.#log = log;
  }

  pragmas(): SqlitePragmas {
    return this.#log.pragmas();
  }
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS kv (
    revision INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    create_revision INTEGER NOT NULL,
    prev_revision INTEGER NOT NULL,
    value TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS kv_key_revision ON kv (key, revision);
  CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

const COLUMNS = 'revision, key, create_revision, prev_revision, value, deleted, created_at';

interface Row {
  revision: number;
  key: string;
  create_revision: number;
  prev_revision: number;
  value: string;
  deleted: number;
  created_at: number;
}

/** A row read in raw mode (an array in COLUMNS order): no object per row, for reads that make entries of them at once. */
type RawRow = [
  revision: number,
  key: string,
  createRevision: number,
  prevRevision: number,
  value: string,
  deleted: number,
  createdAt: number,
];

/**
 * The keys a prefix scan visits, as one SQL condition with a single lower and at most one upper
 * bound (so SQLite seeks the index instead of filtering), and the bounds' values.
 */
interface KeyBounds {
  condition: string;
  params: { lo: string; hi?: string };
}

type Statement<Params extends object, Result = unknown> = Database.Statement<[Params], Result>;
type RangeParams = KeyBounds['params'] & { at: number; limit: number };
type CountParams = KeyBounds['params'] & { at: number };
type HistoryParams = KeyBounds['params'] & { from: number };

/** The values of recently read or written keys kept to answer reads of them without a row (UTF-16 code units). */
const NEWEST_ENTRIES_CHARS = 16 * 1024 * 1024;

class SqliteLog implements RevisionLog {
  readonly #db: Database.Database;
  readonly #inTransaction: (fn: () => unknown) => unknown;
  readonly #latest: Database.Statement<[string, number], RawRow>;
  readonly #entryAt: Database.Statement<[number], RawRow>;
  readonly #insert: Statement<Row>;
  readonly #revisionWrittenBy: Statement<{ from: number; time: number }, number | null>;
  readonly #dropSuperseded: Statement<{ from: number; to: number }>;
  readonly #dropTombstones: Statement<{ from: number; to: number }>;
  readonly #setCompacted: Database.Statement<[number]>;
  // Scans are prepared once per shape of key condition (at most four shapes).
  readonly #range = new Map<string, Statement<RangeParams, RawRow>>();
  readonly #count = new Map<string, Statement<CountParams, number>>();
  readonly #history = new Map<string, Statement<HistoryParams, RawRow>>();
  /**
   * The committed newest entries of recently used keys (tombstones never). This connection is the
   * file's only writer (the exclusive lock), so an entry stays the newest until this log appends
   * to its key: a read at the current revision, most reads, is answered from here.
   */
  readonly #newest = new NewestEntries(NEWEST_ENTRIES_CHARS);
  /** Inside a transaction: the entries it appended, by key, for the cache once it commits. */
  #written: Map<string, LogEntry> | undefined;
  #current: number;
  #compacted: number;

  constructor(path: string) {
    if (path !== ':memory:' && path !== '') privateDatabaseFiles(path);
    // No busy wait: the only other holder of the lock is another store, which will not let go.
    const db = new Database(path, { timeout: 0 });
    this.#db = db;
    try {
      // Exclusive before WAL: no shared-memory index, and no second process can open the file.
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec(SCHEMA);
      this.#inTransaction = db.transaction((fn: () => unknown) => fn());
      this.#latest = db
        .prepare<[string, number], RawRow>(`SELECT ${COLUMNS} FROM kv WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1`)
        .raw();
      this.#entryAt = db.prepare<[number], RawRow>(`SELECT ${COLUMNS} FROM kv WHERE revision = ?`).raw();
      this.#insert = db.prepare(
        `INSERT INTO kv (${COLUMNS}) VALUES
         (@revision, @key, @create_revision, @prev_revision, @value, @deleted, @created_at)`,
      );
      this.#revisionWrittenBy = db
        .prepare<{ from: number; time: number }, number | null>(
          // created_at never decreases along revisions, so scanning from the last compaction suffices.
          'SELECT MAX(revision) FROM kv WHERE revision >= @from AND created_at <= @time',
        )
        .pluck();
      // kine's compaction: a row is superseded when a later row of its key names it as prev_revision.
      this.#dropSuperseded = db.prepare(
        `DELETE FROM kv WHERE revision IN (
           SELECT prev_revision FROM kv WHERE revision > @from AND revision <= @to AND prev_revision != 0)`,
      );
      this.#dropTombstones = db.prepare('DELETE FROM kv WHERE deleted = 1 AND revision >= @from AND revision < @to');
      this.#setCompacted = db.prepare(
        `INSERT INTO meta (name, value) VALUES ('compacted_revision', ?)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      );
      this.#current = db.prepare<[], number | null>('SELECT MAX(revision) FROM kv').pluck().get() ?? 0;
      this.#compacted = db.prepare<[], number>("SELECT value FROM meta WHERE name = 'compacted_revision'").pluck().get() ?? 0;
    } catch (error) {
      db.close();
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_BUSY') {
        throw new StoreInUseError(`${path} is already open in another store (SQLite: database is locked); one process owns a store file`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  currentRevision(): number {
    return this.#current;
  }

  compactedRevision(): number {
    return this.#compacted;
  }

  latest(key: string, at: number): LogEntry | undefined {
    const written = this.#written;
    if (written === undefined || !written.has(key)) {
      const cached = this.#newest.get(key);
      if (cached !== undefined && cached.revision <= at) return cached;
    }
    const entry = entryOf(this.#latest.get(key, at));
    // Only a row read outside a transaction at the current revision is known committed and newest.
    if (entry !== undefined && !entry.deleted && written === undefined && at === this.#current) this.#newest.set(entry);
    return entry;
  }

  entryAt(revision: number): LogEntry | undefined {
    return entryOf(this.#entryAt.get(revision));
  }

  range(prefix: string, at: number, startAfter: string | undefined, limit: number | undefined): LogEntry[] {
    const { condition, params } = keyBoundsOf(prefix, startAfter);
    // Walks the (key, revision) index in key order and stops at the limit: a page costs its size,
    // not the collection's. A row is listed when it is its key's newest at `at`.
    const statement = cached(this.#range, condition, () =>
      this.#db
        .prepare<RangeParams, RawRow>(
          `SELECT ${COLUMNS} FROM kv
         WHERE ${condition} AND revision <= @at AND deleted = 0
           AND revision = (SELECT MAX(newer.revision) FROM kv AS newer
                           WHERE newer.key = kv.key AND newer.revision <= @at)
         ORDER BY key LIMIT @limit`,
        )
        .raw(),
    );
    // LIMIT -1 is SQLite's "no limit".
    return statement.all({ ...params, at, limit: limit ?? -1 }).map(entryOfRow);
  }

  count(prefix: string, at: number, startAfter: string | undefined): number {
    const { condition, params } = keyBoundsOf(prefix, startAfter);
    // Grouping in one index pass counts faster than the per-key lookups of `range`.
    const statement = cached(this.#count, condition, () =>
      this.#db
        .prepare<CountParams, number>(
          `SELECT COUNT(*) FROM kv JOIN (
             SELECT MAX(revision) AS revision FROM kv WHERE ${condition} AND revision <= @at GROUP BY key
           ) USING (revision)
           WHERE deleted = 0`,
        )
        .pluck(),
    );
    return statement.get({ ...params, at }) ?? 0;
  }

  history(prefix: string, after: number): LogEntry[] {
    const { condition, params } = keyBoundsOf(prefix, undefined);
    // Rows after `after` are few (the history window); a collection's rows may be many, so scan
    // by revision, not by the key index.
    const statement = cached(this.#history, condition, () =>
      this.#db
        .prepare<HistoryParams, RawRow>(`SELECT ${COLUMNS} FROM kv NOT INDEXED WHERE revision > @from AND ${condition} ORDER BY revision`)
        .raw(),
    );
    return statement.all({ ...params, from: after }).map(entryOfRow);
  }

  /** Not nested (the store never nests them): the cache learns a transaction's appends when it commits. */
  transact<T>(fn: () => T): T {
    const current = this.#current;
    const written = new Map<string, LogEntry>();
    this.#written = written;
    try {
      const result = this.#inTransaction(fn) as T;
      for (const entry of written.values()) this.#cacheCommitted(entry);
      return result;
    } catch (error) {
      // The commit failed or `fn` threw after appending: the revision sequence did not advance.
      this.#current = current;
      throw error;
    } finally {
      this.#written = undefined;
    }
  }

  append(entry: LogEntry): void {
    this.#insert.run({
      revision: entry.revision,
      key: entry.key,
      create_revision: entry.createRevision,
      prev_revision: entry.prevRevision,
      value: entry.value,
      deleted: entry.deleted ? 1 : 0,
      created_at: entry.createdAt,
    });
    this.#current = entry.revision;
    if (this.#written === undefined) this.#cacheCommitted(entry);
    else this.#written.set(entry.key, entry);
  }

  #cacheCommitted(entry: LogEntry): void {
    if (entry.deleted) this.#newest.delete(entry.key);
    else this.#newest.set(entry);
  }

  revisionWrittenBy(time: number): number {
    return this.#revisionWrittenBy.get({ from: this.#compacted, time }) ?? 0;
  }

  compactTo(revision: number): void {
    const from = this.#compacted;
    this.transact(() => {
      this.#dropSuperseded.run({ from, to: revision });
      this.#dropTombstones.run({ from, to: revision });
      this.#setCompacted.run(revision);
    });
    this.#compacted = revision;
  }

  pragmas(): SqlitePragmas {
    return {
      journalMode: String(this.#db.pragma('journal_mode', { simple: true })),
      synchronous: Number(this.#db.pragma('synchronous', { simple: true })),
      lockingMode: String(this.#db.pragma('locking_mode', { simple: true })),
    };
  }

  close(): void {
    this.#db.close();
  }
}

/**
 * The database file made (or narrowed to) 0600 before SQLite opens it: SQLite creates its WAL
 * (and journal) with the database file's mode, so they follow; side files a crash left behind
 * are narrowed too. With the exclusive lock SQLite makes no -shm file. An existing database that
 * other users could read is narrowed with a warning (its content, service-account tokens'
 * objects and Secrets, must then be taken as seen); one of another user is refused.
 */
function privateDatabaseFiles(path: string): void {
  const warn = (line: string) => process.emitWarning(line, 'StorePermissionWarning');
  privateFile(path, warn);
  for (const side of ['-wal', '-shm', '-journal']) narrowExisting(`${path}${side}`, warn);
}

function keyBoundsOf(prefix: string, startAfter: string | undefined): KeyBounds {
  const afterStart = startAfter !== undefined && compareKeys(startAfter, prefix) >= 0;
  const lower = afterStart ? 'key > @lo' : 'key >= @lo';
  const lo = afterStart ? startAfter : prefix;
  const hi = prefixEnd(prefix);
  return hi === undefined ? { condition: lower, params: { lo } } : { condition: `${lower} AND key < @hi`, params: { lo, hi } };
}

function cached<T>(statements: Map<string, T>, condition: string, prepare: () => T): T {
  let statement = statements.get(condition);
  if (statement === undefined) {
    statement = prepare();
    statements.set(condition, statement);
  }
  return statement;
}

function entryOf(row: RawRow | undefined): LogEntry | undefined {
  return row && entryOfRow(row);
}

function entryOfRow([revision, key, createRevision, prevRevision, value, deleted, createdAt]: RawRow): LogEntry {
  return { key, revision, createRevision, prevRevision, value, deleted: deleted === 1, createdAt };
}

/** The store file is another process's (or another store's of this one): one process owns a store file. */
export class StoreInUseError extends Error {
  override readonly name = 'StoreInUseError';
}
