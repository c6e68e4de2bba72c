import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';
import { matchesGlob } from './glob.js';
import { captureAll, captureValue, substitute, substituteDeep, type Vars } from './vars.js';

function vars(entries: Record<string, unknown>): Vars {
  return new Map(Object.entries(entries)) as Vars;
}

describe('substitute', () => {
  const v = vars({ ns: 'svckit-conf-1', rv: '1200', count: 3, obj: { a: 1 } });

  it('replaces variables inside text and keeps $${ literal', () => {
    expect(substitute('/api/v1/namespaces/${ns}/configmaps?x=${count}', v)).toBe('/api/v1/namespaces/svckit-conf-1/configmaps?x=3');
    expect(substitute('cost: $${ns}', v)).toBe('cost: ${ns}');
  });

  it('keeps the type of a value that is exactly one variable', () => {
    expect(substituteDeep({ n: '${count}', o: '${obj}', s: 'n=${count}', '${ns}': true }, v)).toEqual({
      n: 3,
      o: { a: 1 },
      s: 'n=3',
      'svckit-conf-1': true,
    });
  });

  it('names an undefined variable and the known ones', () => {
    expect(() => substitute('${nope}', v)).toThrow(/undefined variable \$\{nope\} \(known: count, ns, obj, rv\)/);
  });

  it('forms a future version from a decimal one, and skips the scenario otherwise', () => {
    expect(substitute('${rv:future}', v)).toBe('1000001200');
    expect(() => substitute('${ns:future}', v)).toThrow(expect.objectContaining({ name: 'ScenarioSkipped' }));
    expect(() => substitute('${rv:shout}', v)).toThrow(/unknown variable function/);
  });
});

describe('capture', () => {
  const source = {
    json: { metadata: { resourceVersion: '7', continue: 'tok' }, items: [{ n: 1 }, { n: 2 }] },
    headers: { warning: ['a', 'b'], 'retry-after': '1' },
    raw: Buffer.from('xyz'),
    status: 410,
  };

  it('reads JSONPath, headers, raw bytes and the status', () => {
    expect(captureValue('$.metadata.resourceVersion', source)).toBe('7');
    expect(captureValue('$.items[*].n', source)).toEqual([1, 2]);
    expect(captureValue('header:Retry-After', source)).toBe('1');
    expect(captureValue('header:warning', source)).toBe('a, b');
    expect(captureValue('raw:body', source)).toEqual(Buffer.from('xyz'));
    expect(captureValue('status', source)).toBe(410);
  });

  it('fails when the value is not there, naming the capture', () => {
    expect(() => captureValue('$.metadata.uid', source)).toThrow(/capture \$\.metadata\.uid: nothing at that path/);
    expect(() => captureValue('header:etag', source)).toThrow(/no such header/);
  });

  it('feeds later steps through the variables', () => {
    const v = vars({});
    captureAll({ rv: '$.metadata.resourceVersion', continue: '$.metadata.continue' }, source, v);
    expect(substitute('?resourceVersion=${rv}&continue=${continue}', v)).toBe('?resourceVersion=7&continue=tok');
  });
});

describe('durations and globs', () => {
  it('parses Go-style durations', () => {
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2')).toBe(2000);
    expect(() => parseDuration('5 minutes')).toThrow(/invalid duration/);
    expect(formatDuration(90_000)).toBe('1m30s');
  });

  it('matches ids: * within a segment, ** across, plain prefixes and instances', () => {
    expect(matchesGlob('core/list/limit[configmaps]', 'core/list/*')).toBe(true);
    expect(matchesGlob('core/list/limit[configmaps]', 'core/*')).toBe(false);
    expect(matchesGlob('core/list/limit[configmaps]', 'core/**')).toBe(true);
    expect(matchesGlob('core/list/limit[configmaps]', 'core/list')).toBe(true);
    expect(matchesGlob('core/list/limit[configmaps]', 'core/list/limit')).toBe(true);
    expect(matchesGlob('core/list/limit-other', 'core/list/limit')).toBe(false);
    expect(matchesGlob('core/list/limit[nodes]', 'core/list/limit[configmaps]')).toBe(false);
    expect(matchesGlob('core/list/limit[nodes]', '**[nodes]')).toBe(true);
  });
});
