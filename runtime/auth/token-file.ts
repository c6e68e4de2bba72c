/**
 * The static token file authenticator, in the real system's CSV format, one token a line:
 *
 *     token,user,uid,"group1,group2"
 *
 * At least three columns; the fourth, when present, is a comma-separated group list (quoted, as
 * CSV requires). Fields may be quoted with `"` (a doubled `""` is a quote); leading spaces of a
 * field are dropped. A malformed file fails loading with an error naming the line, because a
 * server that starts with half its tokens is worse than one that does not start. Lines with an
 * empty token are skipped and a repeated token replaces the earlier one, as upstream does; both are
 * reported as warnings naming the line.
 */
import type { Authenticator, AuthenticatorResult, RequestCredentials } from './authenticate.js';
import type { UserInfo } from './user.js';

export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
  constructor(
    readonly source: string,
    readonly line: number,
    detail: string,
  ) {
    super(`token file ${source}, line ${line}: ${detail}`);
  }
}

interface CsvRecord {
  readonly line: number;
  readonly fields: string[];
}

/** Parses CSV text into records with the line each starts on; quoted fields may span lines. */
function parseCsv(text: string, source: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    let field = '';
    let atFieldStart = true;
    let endOfRecord = false;
    while (i < n && !endOfRecord) {
      const c = text[i] as string;
      if (atFieldStart && (c === ' ' || c === '\t')) {
        i++;
        continue;
      }
      if (atFieldStart && c === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new TokenFileError(source, start, 'unterminated quoted field');
          const q = text[i] as string;
          if (q === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (q === '\n') line++;
          field += q;
          i++;
        }
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new TokenFileError(source, line, `unexpected ${JSON.stringify(next)} after a quoted field`);
        }
        atFieldStart = false;
        continue;
      }
      if (c === ',') {
        fields.push(field);
        field = '';
        atFieldStart = true;
        i++;
        continue;
      }
      if (c === '\r' && text[i + 1] === '\n') {
        i++;
        continue;
      }
      if (c === '\n') {
        line++;
        i++;
        endOfRecord = true;
        continue;
      }
      if (c === '"') throw new TokenFileError(source, line, 'bare " in an unquoted field');
      field += c;
      atFieldStart = false;
      i++;
    }
    fields.push(field);
    // Blank lines are not records (encoding/csv skips them too).
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: start, fields });
  }
  return records;
}

export interface TokenTable {
  readonly users: ReadonlyMap<string, UserInfo>;
  readonly warnings: readonly string[];
}

/** Parses a token file's text; `source` names it in errors (a path). */
export function parseTokenFile(text: string, source = 'tokens.csv'): TokenTable {
  const users = new Map<string, UserInfo>();
  const firstLine = new Map<string, number>();
  const warnings: string[] = [];
  for (const { line, fields } of parseCsv(text, source)) {
    if (fields.length < 3) {
      throw new TokenFileError(source, line, `must have at least 3 columns (token, user name, user uid), found ${fields.length}`);
    }
    const [token, username, uid, groupList] = fields as [string, string, string, string?];
    if (token === '') {
      warnings.push(`token file ${source}, line ${line}: empty token, line skipped`);
      continue;
    }
    if (username === '') throw new TokenFileError(source, line, 'empty user name');
    const earlier = firstLine.get(token);
    if (earlier !== undefined)
      warnings.push(`token file ${source}, line ${line}: duplicate token (first on line ${earlier}), this line wins`);
    else firstLine.set(token, line);
    const groups = groupList === undefined || groupList === '' ? [] : groupList.split(',');
    users.set(token, { username, ...(uid !== '' ? { uid } : {}), groups, extra: {} });
  }
  return { users, warnings };
}

export class TokenFileAuthenticator implements Authenticator {
  readonly name = 'token-file';
  constructor(private readonly table: TokenTable) {}

  static fromText(text: string, source?: string): TokenFileAuthenticator {
    return new TokenFileAuthenticator(parseTokenFile(text, source));
  }

  /** A token not in the file is not this authenticator's to judge: other token authenticators may know it. */
  authenticate(credentials: RequestCredentials): AuthenticatorResult {
    const token = credentials.bearerToken;
    if (token === undefined) return { outcome: 'skip' };
    const user = this.table.users.get(token);
    if (!user) return { outcome: 'skip' };
    return { outcome: 'user', user, detail: 'static token' };
  }
}
