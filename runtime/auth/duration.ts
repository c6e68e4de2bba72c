/**
 * Durations in configuration documents are Go duration strings (`30s`, `1m30s`, `500ms`, `2h`):
 * parsed here to milliseconds, with an error that quotes the text.
 */
const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    consumed = re.lastIndex;
  }
  if (consumed === 0 || consumed !== text.length)
    throw new Error(`invalid duration ${JSON.stringify(text)}; use a form such as 30s, 1m30s or 500ms`);
  return total;
}
