import { describe, expect, it } from 'vitest';
import { parseTokenFile, TokenFileAuthenticator, TokenFileError } from './token-file.js';

describe('parseTokenFile', () => {
  it('reads token, user, uid and a quoted group list', () => {
    const t = parseTokenFile('t1,alice,u1,"devs,ops"\nt2,bob,u2\n t3, carol ,,admins\n');
    expect(t.users.get('t1')).toEqual({ username: 'alice', uid: 'u1', groups: ['devs', 'ops'], extra: {} });
    expect(t.users.get('t2')).toEqual({ username: 'bob', uid: 'u2', groups: [], extra: {} });
    expect(t.users.get('t3')).toEqual({ username: 'carol ', groups: ['admins'], extra: {} });
    expect(t.warnings).toEqual([]);
  });

  it('accepts CRLF line ends, blank lines and doubled quotes', () => {
    const t = parseTokenFile('t1,"al""ice",u1\r\n\r\nt2,bob,u2\r\n');
    expect(t.users.get('t1')?.username).toBe('al"ice');
    expect(t.users.get('t2')?.username).toBe('bob');
  });

  it.each([
    ['t1,alice,u1\nt2,bob\n', 2, 'must have at least 3 columns (token, user name, user uid), found 2'],
    ['t1,alice,u1\n\nt2,"bob,u2\n', 3, 'unterminated quoted field'],
    ['t1,al"ice,u1\n', 1, 'bare " in an unquoted field'],
    ['t1,"alice"x,u1\n', 1, 'unexpected "x" after a quoted field'],
    ['t1,,u1\n', 1, 'empty user name'],
  ])('rejects %j naming line %i', (text, line, detail) => {
    let error: unknown;
    try {
      parseTokenFile(text, '/etc/tokens.csv');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TokenFileError);
    expect((error as TokenFileError).line).toBe(line);
    expect((error as Error).message).toBe(`token file /etc/tokens.csv, line ${line}: ${detail}`);
  });

  it('skips empty tokens and lets a repeated token win, with warnings naming the lines', () => {
    const t = parseTokenFile(',alice,u1\nt,bob,u2\nt,carol,u3\n', 'f');
    expect(t.users.get('t')?.username).toBe('carol');
    expect(t.warnings).toEqual([
      'token file f, line 1: empty token, line skipped',
      'token file f, line 3: duplicate token (first on line 2), this line wins',
    ]);
  });
});

describe('TokenFileAuthenticator', () => {
  const a = TokenFileAuthenticator.fromText('secret,alice,u1,"devs"\n');
  it('identifies a known token', () => {
    expect(a.authenticate({ bearerToken: 'secret' })).toMatchObject({ outcome: 'user', user: { username: 'alice', groups: ['devs'] } });
  });
  it('leaves unknown tokens and requests without a token to others', () => {
    expect(a.authenticate({ bearerToken: 'other' })).toEqual({ outcome: 'skip' });
    expect(a.authenticate({})).toEqual({ outcome: 'skip' });
  });
});
