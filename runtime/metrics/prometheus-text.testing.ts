/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests: every sample
 * belongs to a family declared by `# HELP` and `# TYPE` before it, names and labels are well
 * formed, label values correctly escaped, values numbers; histograms have cumulative buckets
 * ending in `+Inf` equal to `_count`. Anything else throws, naming the line.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const help = new Map<string, string>();
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  text.split('\n').forEach((line, i) => {
    const at = `line ${i + 1} (${JSON.stringify(line)})`;
    if (line === '') return;
    if (line.startsWith('# HELP ')) {
      const [, name, doc] = /^# HELP (\S+) (.*)$/.exec(line) ?? [];
      if (!name || !NAME.test(name) || help.has(name)) throw new Error(`${at}: bad or repeated HELP`);
      help.set(name, unescapeHelp(doc ?? ''));
      return;
    }
    if (line.startsWith('# TYPE ')) {
      const [, name, type] = /^# TYPE (\S+) (\S+)$/.exec(line) ?? [];
      if (!name || !type || !TYPES.has(type) || families.has(name)) throw new Error(`${at}: bad or repeated TYPE`);
      if (!help.has(name)) throw new Error(`${at}: TYPE before HELP`);
      families.set(name, { name, help: help.get(name)!, type: type as Family['type'], samples: [] });
      return;
    }
    if (line.startsWith('#')) return;
    const sample = parseSample(line, at);
    const family = familyOf(families, sample.name);
    if (!family) throw new Error(`${at}: sample of an undeclared family`);
    family.samples.push(sample);
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function familyOf(families: Map<string, Family>, sample: string): Family | undefined {
  const direct = families.get(sample);
  if (direct) return direct;
  const m = /^(.*)_(bucket|sum|count)$/.exec(sample);
  const f = m ? families.get(m[1]!) : undefined;
  return f && (f.type === 'histogram' || f.type === 'summary') ? f : undefined;
}

function parseSample(line: string, at: string): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
  if (!m) throw new Error(`${at}: not a sample`);
  const labels: Record<string, string> = {};
  const body = m[2] ? m[2].slice(1, -1) : '';
  let i = 0;
  while (i < body.length) {
    const eq = body.indexOf('=', i);
    const name = body.slice(i, eq);
    if (eq < 0 || !LABEL.test(name) || body[eq + 1] !== '"') throw new Error(`${at}: bad label at ${i}`);
    let j = eq + 2;
    let value = '';
    for (; j < body.length && body[j] !== '"'; j++) {
      if (body[j] === '\\') {
        const c = body[++j];
        if (c === 'n') value += '\n';
        else if (c === '\\' || c === '"') value += c;
        else throw new Error(`${at}: bad escape \\${c}`);
      } else value += body[j];
    }
    if (body[j] !== '"') throw new Error(`${at}: unterminated label value`);
    if (name in labels) throw new Error(`${at}: label ${name} repeated`);
    labels[name] = value;
    i = j + 1;
    if (i < body.length) {
      if (body[i] !== ',') throw new Error(`${at}: expected , between labels`);
      i++;
    }
  }
  const raw = m[3]!;
  const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
  if (!['+Inf', '-Inf', 'NaN'].includes(raw) && (raw.trim() === '' || Number.isNaN(value))) throw new Error(`${at}: bad value`);
  return { name: m[1]!, labels, value };
}

function checkHistogram(f: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith('_bucket')) entry.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
    if (s.name.endsWith('_count')) entry.count = s.value;
  }
  for (const [key, { buckets, count }] of series) {
    const last = buckets.at(-1);
    if (!last || last[0] !== Infinity || last[1] !== count) throw new Error(`${f.name}${key}: the +Inf bucket must equal _count`);
    buckets.forEach(([le, v], i) => {
      if (i > 0 && (le <= buckets[i - 1]![0] || v < buckets[i - 1]![1])) throw new Error(`${f.name}${key}: buckets must be cumulative`);
    });
  }
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(n|\\)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** The samples of `name` whose labels include every given one. */
export function samples(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): Sample[] {
  const f = familyOf(families, name);
  return (f?.samples ?? []).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
