/**
 * Audit backends: JSON lines to a file with rotation (upstream's log backend over lumberjack) or to
 * a stream (`--audit-log-path -`), and an in-memory backend tests query.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { AuditBackend, AuditEvent } from './event.js';

/** Keeps every event; `events()` filters them (by auditID, stage, verb...). */
export class MemoryAuditBackend implements AuditBackend {
  readonly #events: AuditEvent[] = [];

  process(event: AuditEvent): void {
    this.#events.push(event);
  }

  /** The events recorded so far, oldest first, that have every given field value. */
  events(filter: Partial<Pick<AuditEvent, 'auditID' | 'stage' | 'verb' | 'level' | 'requestURI'>> = {}): AuditEvent[] {
    const entries = Object.entries(filter).filter(([, v]) => v !== undefined);
    return this.#events.filter((e) => entries.every(([k, v]) => e[k as keyof AuditEvent] === v));
  }

  clear(): void {
    this.#events.length = 0;
  }
}

/** Sends each event to every backend (a log file and the in-memory backend of a test). */
export function unionBackend(backends: readonly AuditBackend[]): AuditBackend {
  return { process: (event) => backends.forEach((b) => b.process(event)) };
}

/** Writes one JSON line per event to a stream (stdout for `--audit-log-path -`). */
export class StreamAuditBackend implements AuditBackend {
  constructor(private readonly write: (line: string) => void) {}

  process(event: AuditEvent): void {
    this.write(`${JSON.stringify(event)}\n`);
  }
}

export interface LogFileOptions {
  /** Rotate before the file would exceed this many megabytes; 0 means lumberjack's default, 100. */
  maxSizeMB?: number;
  /** Rotated files to keep (newest first); 0 keeps all. */
  maxBackups?: number;
  /** Remove rotated files older than this many days; 0 keeps them regardless of age. */
  maxAgeDays?: number;
  /** Milliseconds since the epoch (tests inject one). */
  now?: () => number;
  /** Bytes per megabyte (tests rotate small files); 1048576. */
  bytesPerMB?: number;
}

/**
 * JSON lines appended to a file, written synchronously (upstream's default `blocking` mode: an
 * event is on disk, in order, before the response). When a line would make the file larger than
 * the limit, the file is renamed `<name>-<UTC time>.<ext>` (`audit-2026-11-24T09-36-58.123.log`),
 * a new one is started, and rotated files beyond `maxBackups` or older than `maxAgeDays` removed.
 */
export class LogFileAuditBackend implements AuditBackend {
  #fd: number;
  #size: number;
  readonly #limit: number;
  readonly #now: () => number;

  constructor(
    readonly path: string,
    private readonly options: LogFileOptions = {},
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.#fd = openSync(path, 'a', 0o600);
    this.#size = fstatSync(this.#fd).size;
    this.#limit = (options.maxSizeMB || 100) * (options.bytesPerMB ?? 1024 * 1024);
    this.#now = options.now ?? Date.now;
  }

  process(event: AuditEvent): void {
    const line = Buffer.from(`${JSON.stringify(event)}\n`);
    if (this.#size > 0 && this.#size + line.length > this.#limit) this.#rotate();
    writeSync(this.#fd, line);
    this.#size += line.length;
  }

  close(): void {
    closeSync(this.#fd);
  }

  /** The rotated files, newest first. */
  backups(): string[] {
    const { dir, prefix, ext } = this.#parts();
    return readdirSync(dir)
      .filter((f) => f.startsWith(prefix) && f.endsWith(ext) && TIME.test(f.slice(prefix.length, f.length - ext.length)))
      .sort()
      .reverse()
      .map((f) => join(dir, f));
  }

  #parts() {
    const ext = extname(this.path);
    return { dir: dirname(this.path), prefix: `${basename(this.path, ext)}-`, ext };
  }

  #rotate(): void {
    closeSync(this.#fd);
    const { dir, prefix, ext } = this.#parts();
    let t = this.#now();
    let target: string;
    // Two rotations within one millisecond get distinct names.
    while (existsSync((target = join(dir, `${prefix}${new Date(t).toISOString().slice(0, 23).replace(/:/g, '-')}${ext}`)))) t += 1;
    renameSync(this.path, target);
    this.#fd = openSync(this.path, 'a', 0o600);
    this.#size = 0;
    this.#prune();
  }

  #prune(): void {
    const { maxBackups = 0, maxAgeDays = 0 } = this.options;
    const cutoff = this.#now() - maxAgeDays * 24 * 3600_000;
    this.backups().forEach((f, i) => {
      if ((maxBackups > 0 && i >= maxBackups) || (maxAgeDays > 0 && backupTime(f) < cutoff)) unlinkSync(f);
    });
  }
}

const TIME = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}$/;

/** The time in a rotated file's name (lumberjack judges age by it, not by the file's mtime). */
function backupTime(file: string): number {
  const m = /(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d\.\d{3})/.exec(basename(file));
  return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`) : statSync(file).mtimeMs;
}
