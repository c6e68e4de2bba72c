import { describe, expect, it } from 'vitest';
import { rewriteGroupSuffix } from './group-suffix.js';
import { isKnownFailing, parseKnownFailing, unusedPatterns } from './known-failing.js';
import { closingLine, escapeXml, formatJsonReport, formatJunitReport, formatTerminalReport, ProgressBar } from './report/index.js';
import type { RunReport } from './runner.js';
import type { ScenarioResult } from './types.js';

function result(id: string, outcome: ScenarioResult['outcome'], extra: Partial<ScenarioResult> = {}): ScenarioResult {
  return {
    id,
    area: id.split('/').slice(0, 2).join('/'),
    rules: ['core-protocol.md#Verbs: get'],
    ruleTexts: ['GET on a resource answers 200 with the object.'],
    tags: [],
    file: 'x.yaml',
    outcome,
    trace: [],
    millis: 12,
    ...extra,
  };
}

const report: RunReport = {
  server: 'http://127.0.0.1:1',
  prefix: 'svckit-conf-abc123-',
  startedAt: '2024-01-01T00:00:00.000Z',
  millis: 1500,
  leftovers: [],
  summary: { passed: 2, failed: 1, skipped: 1, knownFailing: 0 },
  results: [
    result('core/verbs/get', 'passed'),
    result('core/list/paged[configmaps]', 'passed'),
    result('core/list/snapshot<&>"quoted"', 'failed', {
      step: '2 (second page)',
      message: 'status: expected 410, got 200',
      trace: [
        {
          step: '2 (second page)',
          method: 'GET',
          url: '/api/v1/namespaces/x/configmaps?limit=1&continue=abc',
          requestHeaders: { accept: 'application/json', authorization: 'Bearer <redacted>' },
          status: 200,
          responseHeaders: { 'content-type': 'application/json' },
          responseBody: `{"kind":"ConfigMapList","items":[${'{"x":1},'.repeat(200)}{}]}`,
          millis: 3,
        },
      ],
    }),
    result('core/media/protobuf', 'skipped', { message: 'the server does not offer protobuf (--without)' }),
  ],
};

/** A small well-formedness check: balanced tags, quoted attributes, no stray < or & in text. */
function assertWellFormedXml(xml: string): void {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  const body = xml.replace(/^<\?xml[^>]*\?>/, '');
  const stack: string[] = [];
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = token.exec(body))) {
    consumed = token.lastIndex;
    const [, close, name, , selfClose, text] = m;
    if (text !== undefined) {
      expect(text).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
      continue;
    }
    if (close) expect(stack.pop()).toBe(name);
    else if (!selfClose) stack.push(name ?? '');
  }
  expect(consumed).toBe(body.length);
  expect(stack).toEqual([]);
}

describe('reports', () => {
  it('closes with exactly "N passed, N failed, N skipped"', () => {
    expect(closingLine({ passed: 3, failed: 0, skipped: 2 })).toBe('3 passed, 0 failed, 2 skipped');
    const text = formatTerminalReport(report);
    expect(text.trimEnd().split('\n').at(-1)).toBe('2 passed, 1 failed, 1 skipped');
  });

  it('shows per-area counts and, for each failure, the id, rule, step, message and a trimmed trace', () => {
    const text = formatTerminalReport(report, { bodyLimit: 100 });
    expect(text).toMatch(/FAIL core\/list\/snapshot<&>"quoted"/);
    expect(text).toContain('rule: core-protocol.md#Verbs: get - GET on a resource answers 200 with the object.');
    expect(text).toContain('step 2 (second page): status: expected 410, got 200');
    expect(text).toContain('> GET /api/v1/namespaces/x/configmaps?limit=1&continue=abc');
    expect(text).toContain('authorization: Bearer <redacted>');
    expect(text).toMatch(/< \{"kind":"ConfigMapList".{0,100}\.\.\. \(\d+ chars\)/);
    expect(text).toMatch(/FAIL core\/list\s+1 passed, 1 failed, 0 skipped/);
    expect(text).toMatch(/ok {2}core\/verbs\s+1 passed, 0 failed, 0 skipped/);
    expect(text).toContain('1 x the server does not offer protobuf (--without)');
  });

  it('writes well-formed JUnit XML with a testsuite per area and failures and skips marked', () => {
    const xml = formatJunitReport(report);
    assertWellFormedXml(xml);
    expect(xml).toContain('<testsuites name="svckit conformance" tests="4" failures="1" skipped="1"');
    expect(xml).toContain('<testsuite name="core/list" tests="2" failures="1" skipped="0"');
    expect(xml).toContain('name="core/list/snapshot&lt;&amp;&gt;&quot;quoted&quot;"');
    expect(xml).toContain('<failure message="status: expected 410, got 200" type="ExpectationFailed">');
    expect(xml).toContain('<skipped message="the server does not offer protobuf (--without)"/>');
    expect(escapeXml('a\u0000b\u001bc')).toBe('abc');
  });

  it('writes a JSON report that reads back', () => {
    const parsed = JSON.parse(formatJsonReport(report)) as RunReport;
    expect(parsed.summary).toEqual(report.summary);
    expect(parsed.results[2]?.trace[0]?.status).toBe(200);
  });
});

describe('the JSON report', () => {
  const entry = (url: string) => ({
    step: '1',
    method: 'GET',
    url,
    requestHeaders: {},
    status: 200,
    responseHeaders: {},
    responseBody: 'x'.repeat(1000),
    millis: 1,
  });
  const traced: RunReport = {
    ...report,
    results: [
      result('core/verbs/get', 'passed', { trace: [entry('/passed')] }),
      result('core/verbs/list', 'failed', { message: 'status: expected 200, got 500', trace: [entry('/failed')] }),
      result('core/verbs/watch', 'skipped', { knownFailing: true, message: 'known failing', trace: [entry('/known')] }),
      result('core/media/protobuf', 'skipped', { message: 'the server does not offer protobuf', trace: [entry('/skipped')] }),
    ],
  };
  type Parsed = { traces: string; results: { id: string; trace?: { url: string }[] }[] };
  const tracesOf = (p: Parsed) => Object.fromEntries(p.results.map((r) => [r.id, r.trace?.map((t) => t.url)]));

  it('keeps only the traces of failed and known-failing scenarios by default', () => {
    const parsed = JSON.parse(formatJsonReport(traced)) as Parsed;
    expect(parsed.traces).toBe('failed');
    expect(tracesOf(parsed)).toEqual({
      'core/verbs/get': undefined,
      'core/verbs/list': ['/failed'],
      'core/verbs/watch': ['/known'],
      'core/media/protobuf': undefined,
    });
    expect(parsed.results.map((r) => r.id)).toEqual(traced.results.map((r) => r.id));
  });

  it('keeps every trace with traces: all', () => {
    const parsed = JSON.parse(formatJsonReport(traced, { traces: 'all' })) as Parsed;
    expect(parsed.traces).toBe('all');
    expect(Object.values(tracesOf(parsed))).toEqual([['/passed'], ['/failed'], ['/known'], ['/skipped']]);
  });
});

describe('progress', () => {
  function stream(isTTY: boolean) {
    const writes: string[] = [];
    return { writes, stream: { isTTY, columns: 80, write: (t: string) => writes.push(t) > 0 } as unknown as NodeJS.WriteStream };
  }
  const outcomes = (i: number): ScenarioResult['outcome'] => (i % 50 === 7 ? 'failed' : i % 50 === 9 ? 'skipped' : 'passed');

  it('prints a plain line every N scenarios when not a TTY', () => {
    const s = stream(false);
    const progress = new ProgressBar(s.stream, 30, { every: 100, now: () => 0 });
    for (let i = 1; i <= 250; i++) progress.update(result(`core/x/s${i}`, outcomes(i)), i, 250);
    progress.clear();
    expect(s.writes).toEqual(['100/250: 96 passed, 2 failed, 2 skipped\n', '200/250: 192 passed, 4 failed, 4 skipped\n']);
  });

  it('prints a line at the first result once the interval has passed, when not a TTY', () => {
    const s = stream(false);
    let now = 0;
    const progress = new ProgressBar(s.stream, 30, { every: 100, intervalMs: 10_000, now: () => now });
    progress.update(result('core/x/a', 'passed'), 1, 989);
    now = 9_999;
    progress.update(result('core/x/b', 'passed'), 2, 989);
    now = 10_000;
    progress.update(result('core/x/c', 'failed'), 3, 989);
    now = 15_000;
    progress.update(result('core/x/d', 'passed'), 4, 989);
    expect(s.writes).toEqual(['3/989: 2 passed, 1 failed, 0 skipped\n']);
  });

  it('redraws one bar in place on a TTY, with no progress lines', () => {
    const s = stream(true);
    const progress = new ProgressBar(s.stream, 10, { every: 1, now: () => 0 });
    progress.update(result('core/x/a', 'failed'), 1, 2);
    progress.update(result('core/x/b', 'passed'), 2, 2);
    progress.clear();
    expect(s.writes.join('')).not.toContain('\n');
    expect(s.writes[1]).toBe('\r\x1b[2K[##########] 2/2 1 failed core/x/b');
    expect(s.writes.at(-1)).toBe('\r\x1b[2K');
  });
});

describe('known-failing lists', () => {
  const list = parseKnownFailing('# comment\n\ncore/watch/**   # flaky server\ncore/list/paged[configmaps]\n', 'known.txt');

  it('reads patterns with their lines and matches ids', () => {
    expect(list.patterns).toEqual([
      { pattern: 'core/watch/**', line: 3 },
      { pattern: 'core/list/paged[configmaps]', line: 4 },
    ]);
    expect(isKnownFailing(list, 'core/watch/resume[nodes]')).toBe(true);
    expect(isKnownFailing(list, 'core/list/paged[configmaps]')).toBe(true);
    expect(isKnownFailing(list, 'core/list/paged[nodes]')).toBe(false);
  });

  it('names patterns that match no scenario', () => {
    expect(unusedPatterns(list, ['core/watch/a'])).toEqual([{ pattern: 'core/list/paged[configmaps]', line: 4 }]);
  });
});

describe('group suffix', () => {
  it('rewrites groups, the meta group of media types, label prefixes and the Protobuf type', () => {
    expect(rewriteGroupSuffix('/apis/flowcontrol.apiserver.svc.io/v1/flowschemas', 'k8s.io')).toBe(
      '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
    );
    expect(rewriteGroupSuffix('application/json;as=Table;g=meta.svc.io;v=v1', 'k8s.io')).toBe(
      'application/json;as=Table;g=meta.k8s.io;v=v1',
    );
    expect(rewriteGroupSuffix('application/vnd.svc.protobuf', 'k8s.io')).toBe('application/vnd.kubernetes.protobuf');
    // Regular expressions name groups and media types escaped.
    expect(rewriteGroupSuffix('/^299 .*flowcontrol\\.apiserver\\.svc\\.io/v1beta3/', 'k8s.io')).toBe(
      '/^299 .*flowcontrol\\.apiserver\\.k8s\\.io/v1beta3/',
    );
    expect(rewriteGroupSuffix('/^application/vnd\\.svc\\.protobuf/', 'k8s.io')).toBe('/^application/vnd\\.kubernetes\\.protobuf/');
    expect(rewriteGroupSuffix('application/vnd.svc.protobuf', 'example.com')).toBe('application/vnd.example.protobuf');
    expect(rewriteGroupSuffix('svc.io/deprecated', 'k8s.io')).toBe('k8s.io/deprecated');
    expect(rewriteGroupSuffix('stable.example.svc.io/v1', 'svc.io')).toBe('stable.example.svc.io/v1');
    expect(rewriteGroupSuffix('batch/v1', 'k8s.io')).toBe('batch/v1');
  });
});
