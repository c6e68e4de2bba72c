/** Go-style durations as the server's flags take them: `5m`, `90s`, `1m30s`, `250ms`; a bare number is seconds. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export class DurationError extends Error {
  override readonly name = 'DurationError';
}

export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = part.exec(trimmed); m; m = part.exec(trimmed)) {
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
    consumed = part.lastIndex;
  }
  if (consumed === 0 || consumed !== trimmed.length) {
    throw new DurationError(`invalid duration "${text}": expected for example 500ms, 10s, 5m or 1m30s`);
  }
  return Math.round(total);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds ? `${minutes}m${seconds}s` : `${minutes}m`;
}
