/**
 * RE2's syntax as a table: the cases come from Go's regexp/syntax parse_test.go (`parseTests`,
 * `invalidRegexps`, `onlyPerl`, `onlyPOSIX`) and re2's re2/testing/parse_test.cc, with match and
 * non-match inputs written here; the expected errors are what Go's regexp.Compile returns (its
 * ErrorCode strings and the offending text). Used by regex.test.ts and by `npm run bench -- regex`
 * to score other engines on the same cases.
 */

/** [pattern, inputs it matches (anywhere, as Go's MatchString), inputs it does not match] */
export const VALID: [string, string[], string[]][] = [
  // Base cases and repetition.
  ['^a.b$', ['axb'], ['ab', 'a\nb']],
  ['^a{2}$', ['aa'], ['a', 'aaa']],
  ['^a{2,3}$', ['aa', 'aaa'], ['a', 'aaaa']],
  ['^a{2,}$', ['aa', 'aaaaaa'], ['a']],
  ['^(?:[a-z]{4}){0,250}$', ['', 'abcd'], ['abc']],
  ['((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}))', ['x'.repeat(512)], ['x'.repeat(511)]],
  // Malformed braces are literals.
  ['^x{1001$', ['x{1001'], ['x']],
  ['^x{2,1$', ['x{2,1'], []],
  ['^a{,2}$', ['a{,2}'], ['aa']],
  ['^a*{$', ['aaa{'], ['aaa']],
  ['^{}$', ['{}'], []],
  ['^|x|$', ['', 'y'], []],
  // Escapes of syntax characters.
  ['^\\.\\^\\$\\\\$', ['.^$\\'], []],
  ['^\\-\\_$', ['-_'], []],
  // Classes: POSIX, Perl (ASCII only), negated, ranges.
  ['^[[:lower:]]$', ['a'], ['A', 'é']],
  ['^[^[:lower:]]$', ['A', 'é'], ['a']],
  ['^[[:^lower:]]$', ['A'], ['a']],
  ['^(?i)[[:lower:]]$', ['A', 'a', '\u212a'], ['1']],
  ['^[[:alpha:][:digit:]]+$', ['a1'], ['a-1']],
  ['^\\d$', ['7'], ['٣', 'a']],
  ['^\\D$', ['a', '٣'], ['7']],
  ['^\\s$', [' ', '\t', '\n', '\f', '\r'], ['\v', '\u00a0', '\u2003']],
  ['^\\S$', ['\v', 'a'], [' ']],
  ['^\\w+$', ['a_Z9'], ['é', 'a-b']],
  ['^\\W$', ['é', '-'], ['_']],
  ['^[^\\\\]$', ['a'], ['\\']],
  ['^[a-b-c]$', ['a', '-', 'c'], ['d']],
  ['^[α-ε☺]+$', ['αβ☺'], ['ζ']],
  ['\\bfoo\\b', ['a foo b'], ['afoo', 'fooé'.replace('é', '_')]],
  // Unicode classes, negated and doubly negated.
  ['^\\p{Braille}$', ['\u2801'], ['a']],
  ['^\\P{Braille}$', ['a'], ['\u2801']],
  ['^\\p{^Braille}$', ['a'], ['\u2801']],
  ['^\\P{^Braille}$', ['\u2801'], ['a']],
  ['^\\pZ$', [' ', '\u3000'], ['a']],
  ['^\\pN+$', ['12', '٣'], ['a']],
  ['^\\PL$', ['1'], ['a', 'é']],
  ['^\\p{Greek}+$', ['αβγ'], ['abc']],
  ['^\\p{Lu}$', ['Á'], ['á']],
  ['^[\\p{Lu}\\d]+$', ['A1'], ['a']],
  ['^\\p{Any}$', ['\n', 'a'], ['']],
  // Hex and octal.
  ['^[\\012-\\234]\\141$', ['\na'], ['a']],
  ['^[\\x{41}-\\x7a]\\x61$', ['Ba'], ['!a']],
  ['^\\x{1F600}$', ['😀'], ['a']],
  // Quoted literals.
  ['^\\Q+|*?{[\\E$', ['+|*?{['], []],
  ['^\\Q+\\E+$', ['+++'], ['a']],
  ['^\\Qab\\E+$', ['abbb'], ['abab']],
  ['^\\Q\\\\E$', ['\\'], []],
  ['^\\Qa.b', ['a.b'], ['axb']],
  // Anchors: without (?m), ^ and $ are the ends of the text ($ not before a final newline).
  ['a$', ['ba'], ['a\n']],
  ['^a', ['ab'], ['\na']],
  ['(?m)^b$', ['a\nb\nc'], ['abc']],
  ['(?m)a\\z', ['a'], ['a\n']],
  ['(?m)\\Ab', ['b\n'], ['a\nb']],
  // Dot and (?s).
  ['^.$', ['\r', 'é'], ['\n']],
  ['(?s)^.$', ['\n'], []],
  ['(?-s)^.$', ['x'], ['\n']],
  // Flags anywhere: to the end of the enclosing group, or over a group of their own.
  ['^((?i)january|february)$', ['JANUARY', 'January', 'FEBRUARY'], ['march']],
  ['^(?i)\\.?[a-z_]+$', ['.Foo_Bar'], ['foo-bar']],
  ['^a(?i)b$', ['aB', 'ab'], ['AB']],
  ['^(?i)a(?-i)b$', ['Ab'], ['AB']],
  ['^(?i:a)b$', ['Ab'], ['AB']],
  ['^(a(?i)b)c$', ['aBc'], ['aBC']],
  ['^(?i-s:a.)$', ['Ax'], ['A\n']],
  ['(?is)^a.$', ['A\n'], []],
  ['^(?i)abc|ABD$', ['abd', 'ABD'], []],
  // Named groups, both spellings.
  ['^(?P<name>a)(?<other>b)$', ['ab'], ['ba']],
  // Case folding beyond ASCII (Kelvin sign, long s).
  ['(?i)^k$', ['K', '\u212a'], ['x']],
  ['^(?i)[[:upper:]]s$', ['a\u017f'], []],
  // Nesting at the limit; alternation that does not nest.
  [`${'('.repeat(999)}${')'.repeat(999)}`, [''], []],
  [`(${'|'.repeat(12345)})`, [''], []],
];

/** [pattern, Go's regexp.Compile error] */
export const INVALID: [string, string][] = [
  ['(', 'missing closing ): `(`'],
  [')', 'unexpected ): `)`'],
  ['(a', 'missing closing ): `(a`'],
  ['a)', 'unexpected ): `a)`'],
  ['(a))', 'unexpected ): `(a))`'],
  ['(a|b|', 'missing closing ): `(a|b|`'],
  ['a|b|)', 'unexpected ): `a|b|)`'],
  ['[a-z', 'missing closing ]: `[a-z`'],
  ['([a-z)', 'missing closing ]: `[a-z)`'],
  ['x{1001}', 'invalid repeat count: `{1001}`'],
  ['x{9876543210}', 'invalid repeat count: `{9876543210}`'],
  ['x{2,1}', 'invalid repeat count: `{2,1}`'],
  ['x{1,9876543210}', 'invalid repeat count: `{1,9876543210}`'],
  ['a{100000,}', 'invalid repeat count: `{100000,}`'],
  ['((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}){2})', 'invalid repeat count: `{2}`'],
  ['(?:[a-z]{4}){0,251}', 'invalid repeat count: `{0,251}`'],
  ['(?P<name>a', 'missing closing ): `(?P<name>a`'],
  ['(?P<name', 'invalid named capture: `(?P<name`'],
  ['(?P<x y>a)', 'invalid named capture: `(?P<x y>`'],
  ['(?P<>a)', 'invalid named capture: `(?P<>`'],
  ['(?<>a)', 'invalid named capture: `(?<>`'],
  ['(?P<n>a)(?P<n>b)', 'duplicate capture group name: `n`'],
  ['[a-Z]', 'invalid character class range: `a-Z`'],
  ['(?i)[a-Z]', 'invalid character class range: `a-Z`'],
  ['\\Q\\E*', 'missing argument to repetition operator: `*`'],
  ['a|*', 'missing argument to repetition operator: `*`'],
  ['\\p{Foo}', 'invalid character class range: `\\p{Foo}`'],
  ['\\x{110000}', 'invalid escape sequence: `\\x{110000`'],
  ['a\\', 'trailing backslash at end of expression: ``'],
  ['[[:foo:]]', 'invalid character class range: `[:foo:]`'],
  // What RE2 does not have: lookaround, backreferences, possessive and atomic forms, \Z, \C.
  ['a(?=b)', 'invalid or unsupported Perl syntax: `(?=`'],
  ['a(?!b)', 'invalid or unsupported Perl syntax: `(?!`'],
  ['(?<=a)b', 'invalid named capture: `(?<=a)b`'],
  ['(?<!a)b', 'invalid named capture: `(?<!a)b`'],
  ['(?>a)', 'invalid or unsupported Perl syntax: `(?>`'],
  ['(a)\\1', 'invalid escape sequence: `\\1`'],
  ['\\k<a>', 'invalid escape sequence: `\\k`'],
  ['a++', 'invalid nested repetition operator: `++`'],
  ['a**', 'invalid nested repetition operator: `**`'],
  ['a?*', 'invalid nested repetition operator: `?*`'],
  ['a{1}*', 'invalid nested repetition operator: `{1}*`'],
  ['\\Z', 'invalid escape sequence: `\\Z`'],
  ['\\C', 'invalid escape sequence: `\\C`'],
  ['\\8', 'invalid escape sequence: `\\8`'],
  ['(?i)(?s', 'invalid or unsupported Perl syntax: `(?s`'],
  ['(?z)', 'invalid or unsupported Perl syntax: `(?z`'],
  // Size limits of Go's parser.
  [`${'('.repeat(1000)}${')'.repeat(1000)}`, `expression nests too deeply: \`${'('.repeat(1000)}${')'.repeat(1000)}\``],
  ['(xx?){1000}'.repeat(1000), `expression too large: \`${'(xx?){1000}'.repeat(1000)}\``],
  ['\\pL'.repeat(27000), `expression too large: \`${'\\pL'.repeat(27000)}\``],
];
