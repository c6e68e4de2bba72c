import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AuditEvent, LogFileAuditBackend, MemoryAuditBackend } from './index.js';

function event(auditID: string, verb = 'get'): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.svc.io/v1',
    level: 'Metadata',
    auditID,
    stage: 'ResponseComplete',
    requestURI: '/api/v1/nodes',
    verb,
    user: { username: 'u' },
    requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
    stageTimestamp: '2026-01-01T00:00:00.000000Z',
  };
}

const DAY = 24 * 3600_000;

describe('the log file backend', () => {
  it('appends one JSON line per event, to a file that already has lines', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'svckit-audit-')), 'logs', 'audit.log');
    const a = new LogFileAuditBackend(path);
    a.process(event('1'));
    a.close();
    const b = new LogFileAuditBackend(path);
    b.process(event('2'));
    b.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => (JSON.parse(l) as AuditEvent).auditID)).toEqual(['1', '2']);
  });

  it('rotates before the file would pass maxsize, keeps maxbackup files, newest first, and loses no event', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-audit-'));
    const path = join(dir, 'audit.log');
    let now = Date.parse('2026-11-24T09:00:00.000Z');
    const line = `${JSON.stringify(event('00'))}\n`.length;
    // A "megabyte" of two and a half lines: two lines a file.
    const b = new LogFileAuditBackend(path, { maxSizeMB: 1, maxBackups: 2, bytesPerMB: Math.floor(line * 2.5), now: () => now });
    for (let i = 0; i < 9; i++) {
      b.process(event(String(i).padStart(2, '0')));
      now += 1000;
    }
    b.close();
    expect(readdirSync(dir).sort()).toEqual(['audit-2026-11-24T09-00-06.000.log', 'audit-2026-11-24T09-00-08.000.log', 'audit.log']);
    const ids = (f: string) =>
      readFileSync(join(dir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as AuditEvent).auditID);
    expect(ids('audit-2026-11-24T09-00-06.000.log')).toEqual(['04', '05']);
    expect(ids('audit-2026-11-24T09-00-08.000.log')).toEqual(['06', '07']);
    expect(ids('audit.log')).toEqual(['08']);
  });

  it('removes rotated files older than maxage days, by the time in their name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svckit-audit-'));
    const path = join(dir, 'audit.log');
    const now = Date.parse('2026-11-24T09:00:00.000Z');
    writeFileSync(join(dir, 'audit-2026-11-20T09-00-00.000.log'), '{}\n'); // 4 days old
    writeFileSync(join(dir, 'audit-2026-11-23T09-00-00.000.log'), '{}\n'); // 1 day old
    writeFileSync(join(dir, 'audit-notes.log'), 'not a backup\n');
    const line = `${JSON.stringify(event('0'))}\n`.length;
    const b = new LogFileAuditBackend(path, { maxSizeMB: 1, maxAgeDays: 2, bytesPerMB: line, now: () => now + DAY / 2 });
    b.process(event('0'));
    b.process(event('1')); // rotates, then prunes
    b.close();
    expect(readdirSync(dir).sort()).toEqual([
      'audit-2026-11-23T09-00-00.000.log',
      'audit-2026-11-24T21-00-00.000.log',
      'audit-notes.log',
      'audit.log',
    ]);
  });
});

describe('the in-memory backend', () => {
  it('answers the events that have every given field', () => {
    const m = new MemoryAuditBackend();
    m.process(event('a', 'get'));
    m.process({ ...event('a', 'get'), stage: 'RequestReceived' });
    m.process(event('b', 'create'));
    expect(m.events({ auditID: 'a' })).toHaveLength(2);
    expect(m.events({ verb: 'create' }).map((e) => e.auditID)).toEqual(['b']);
    expect(m.events({ auditID: 'a', stage: 'RequestReceived' })).toHaveLength(1);
    m.clear();
    expect(m.events()).toEqual([]);
  });
});
