import { describe, expect, it } from 'vitest';
import {
  GENERATED_NAME_ALPHABET,
  fieldErrorMessage,
  generateName,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPathSegmentPrefix,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
  validateAnnotations,
  validateLabels,
  validateObjectName,
} from './index.js';

const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// Good and bad values from the real system's validation tests.
const GOOD_LABELS = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a'.repeat(63)];
const BAD_LABELS = [
  '',
  'A',
  'ABC',
  'aBc',
  'A1',
  'A-1',
  '1-A',
  '-',
  'a-',
  '-a',
  '1-',
  '-1',
  '_',
  'a_',
  '_a',
  'a_b',
  '1_',
  '_1',
  '1_2',
  '.',
  'a.',
  '.a',
  'a.b',
  '1.',
  '.1',
  '1.2',
  ' ',
  'a ',
  ' a',
  'a b',
  '1 ',
  ' 1',
  '1 2',
  'a'.repeat(64),
];
const GOOD_SUBDOMAINS = [
  'a',
  'ab',
  'abc',
  'a1',
  'a-1',
  'a--1--2--b',
  '0',
  '01',
  '012',
  '1a',
  '1-a',
  '1--a--b--2',
  'a.a',
  'ab.a',
  'abc.a',
  'a1.a',
  'a-1.a',
  'a--1--2--b.a',
  'a.1',
  'ab.1',
  '0.a',
  '01.a',
  '1--a--b--2',
  '0.1',
  'a.b.c.d.e',
  'aa.bb.cc.dd.ee',
  '1.2.3.4.5',
  '11.22.33.44.55',
  'a'.repeat(253),
];
const BAD_SUBDOMAINS = [
  '',
  'A',
  'ABC',
  'aBc',
  'A1',
  'A-1',
  '1-A',
  '-',
  'a-',
  '-a',
  '1-',
  '-1',
  '_',
  'a_',
  '_a',
  'a_b',
  '1_',
  '_1',
  '1_2',
  '.',
  'a.',
  '.a',
  'a..b',
  '1.',
  '.1',
  '1..2',
  ' ',
  'a ',
  ' a',
  'a b',
  '1 ',
  ' 1',
  '1 2',
  'A.a',
  'aB.a',
  'ab.A',
  'A1.a',
  'a1.A',
  'A.1',
  'aB.1',
  'A1.1',
  '1A.1',
  '0.A',
  '01.A',
  '012.A',
  '1A.a',
  '1a.A',
  'A.B.C.D.E',
  'AA.BB.CC.DD.EE',
  'a.B.c.d.e',
  'aa.bB.cc.dd.ee',
  'a@b',
  'a,b',
  'a_b',
  'a;b',
  'a:b',
  'a%b',
  'a?b',
  'a$b',
  'a'.repeat(254),
];
const GOOD_QUALIFIED = [
  'simple',
  'now-with-dashes',
  '1-starts-with-num',
  '1234',
  'simple/simple',
  'now-with-dashes/simple',
  'now-with-dashes/now-with-dashes',
  'now.with.dots/simple',
  'now-with.dashes-and.dots/simple',
  '1-num.2-num/3-num',
  '1234/5678',
  '1.2.3.4/5678',
  'Uppercase_Is_OK_123',
  'example.com/Uppercase_Is_OK_123',
  'requests.storage-foo',
  'a'.repeat(63),
  `${'a'.repeat(253)}/${'b'.repeat(63)}`,
];
const BAD_QUALIFIED = [
  'nospecialchars%^=@',
  'cantendwithadash-',
  '-cantstartwithadash-',
  'only/one/slash',
  'Example.com/abc',
  'example_com/abc',
  'example.com/',
  '/simple',
  'a'.repeat(64),
  `${'a'.repeat(254)}/abc`,
];
const GOOD_LABEL_VALUES = ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', 'a'.repeat(63), ''];
const BAD_LABEL_VALUES = [
  'nospecialchars%^=@',
  'Tama-nui-te-rā.is.Māori.sun',
  '\\backslashes\\are\\bad',
  '-starts-with-dash',
  'ends-with-dash-',
  '.starts.with.dot',
  'ends.with.dot.',
  'a'.repeat(64),
];

describe('DNS names', () => {
  it.each(GOOD_LABELS)('label %j is valid', (v) => expect(isDNS1123Label(v)).toEqual([]));
  it.each(BAD_LABELS)('label %j is invalid', (v) => expect(isDNS1123Label(v).length).toBeGreaterThan(0));
  it.each(GOOD_SUBDOMAINS)('subdomain %j is valid', (v) => expect(isDNS1123Subdomain(v)).toEqual([]));
  it.each(BAD_SUBDOMAINS)('subdomain %j is invalid', (v) => expect(isDNS1123Subdomain(v).length).toBeGreaterThan(0));

  it('says why, in the real messages', () => {
    expect(isDNS1123Label('Web')).toEqual([LABEL_MESSAGE]);
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isDNS1123Subdomain('Web')).toEqual([SUBDOMAIN_MESSAGE]);
    expect(isDNS1123Subdomain(`${'a'.repeat(254)}-`)).toEqual(['must be no more than 253 characters', SUBDOMAIN_MESSAGE]);
  });

  it('checks RFC 1035 labels (must start with a letter)', () => {
    expect(isDNS1035Label('my-svc')).toEqual([]);
    expect(isDNS1035Label('1svc')).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
});

describe('path segment names', () => {
  it.each([
    ['web', []],
    ['Web_1 with spaces', []],
    ['.', ["may not be '.'"]],
    ['..', ["may not be '..'"]],
    ['...', []],
    ['a/b', ["may not contain '/'"]],
    ['a%b', ["may not contain '%'"]],
    ['a/%', ["may not contain '/'", "may not contain '%'"]],
  ])('%j', (name, expected) => expect(isValidPathSegmentName(name)).toEqual(expected));

  it('allows . and .. as prefixes (characters follow)', () => {
    expect(isValidPathSegmentPrefix('..')).toEqual([]);
    expect(isValidPathSegmentPrefix('a/')).toEqual(["may not contain '/'"]);
  });
});

describe('label keys and values', () => {
  it.each(GOOD_QUALIFIED)('key %j is valid', (v) => expect(isQualifiedName(v)).toEqual([]));
  it.each(BAD_QUALIFIED)('key %j is invalid', (v) => expect(isQualifiedName(v).length).toBeGreaterThan(0));
  it.each(GOOD_LABEL_VALUES)('value %j is valid', (v) => expect(isValidLabelValue(v)).toEqual([]));
  it.each(BAD_LABEL_VALUES)('value %j is invalid', (v) => expect(isValidLabelValue(v).length).toBeGreaterThan(0));

  it('names the failing part of a key', () => {
    expect(isQualifiedName('example.com/')).toEqual([
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isQualifiedName('/simple')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Example.com/abc')[0]).toMatch(/^prefix part a lowercase RFC 1123 subdomain/);
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
    expect(isQualifiedName('only/one/slash')[0]).toMatch(
      /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/,
    );
  });

  it('validates label maps as field errors', () => {
    expect(validateLabels({ app: 'web', 'example.com/tier': 'front' })).toEqual([]);
    expect(validateLabels({ 'bad key!': 'ok', good: '-bad' }).map(fieldErrorMessage)).toEqual([
      expect.stringMatching(/^metadata\.labels: Invalid value: "bad key!": name part must consist of/),
      expect.stringMatching(/^metadata\.labels: Invalid value: "-bad": a valid label must be an empty string or consist of/),
    ]);
  });

  it('validates annotation keys case-insensitively and their total size', () => {
    expect(validateAnnotations({ 'Example.COM/Key': 'anything at all, even !@#' })).toEqual([]);
    expect(validateAnnotations({ 'a b': '' }).map(fieldErrorMessage)[0]).toMatch(/^metadata\.annotations: Invalid value: "a b": name part/);
    expect(validateAnnotations({ big: 'x'.repeat(256 * 1024) }).map(fieldErrorMessage)).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
    expect(validateAnnotations({ a: 'x'.repeat(256 * 1024 - 1) })).toEqual([]);
  });
});

describe('object names', () => {
  it('validates generateName as a prefix: a trailing dash is fine', () => {
    expect(nameIsDNSSubdomain('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('web-', false)).toEqual([SUBDOMAIN_MESSAGE]);
    expect(nameIsDNSLabel('ns-', true)).toEqual([]);
    expect(nameIsDNS1035Label('svc-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('-', true)).toEqual([SUBDOMAIN_MESSAGE]);
    expect(nameIsPathSegment('..', true)).toEqual([]);
    expect(nameIsPathSegment('..', false)).toEqual(["may not be '..'"]);
  });

  it('requires a name or a generateName', () => {
    expect(validateObjectName({}).map(fieldErrorMessage)).toEqual(['metadata.name: Required value: name or generateName is required']);
    expect(validateObjectName({ name: 'web' })).toEqual([]);
    expect(validateObjectName({ name: 'Web' }).map(fieldErrorMessage)).toEqual([
      `metadata.name: Invalid value: "Web": ${SUBDOMAIN_MESSAGE}`,
    ]);
    expect(validateObjectName({ generateName: 'Web-', name: 'Web-abcde' }, nameIsDNSLabel).map((e) => e.field)).toEqual([
      'metadata.generateName',
      'metadata.name',
    ]);
  });
});

describe('generateName', () => {
  it('appends five characters of the real alphabet', () => {
    const name = generateName('web-');
    expect(name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(isDNS1123Subdomain(name)).toEqual([]);
  });

  it('uses the injected source', () => {
    let i = 0;
    expect(generateName('x-', () => i++)).toBe(`x-${GENERATED_NAME_ALPHABET.slice(0, 5)}`);
  });

  it('cuts the base so the name fits in 63 characters', () => {
    const name = generateName('a'.repeat(100));
    expect(name).toHaveLength(63);
    expect(name.startsWith('a'.repeat(58))).toBe(true);
    expect(isDNS1123Label(name)).toEqual([]);
  });
});
