import { evaluate } from './test-eval';

describe('regex library', () => {
  test.each([
    ["'abc 123'.find('[0-9]+')", '123'],
    ["'abc'.find('[0-9]+')", ''],
    ["'123 abc 456'.findAll('[0-9]+')", ['123', '456']],
    ["'123 abc 456'.findAll('[0-9]+', 1)", ['123']],
    ["'123 abc 456'.findAll('[0-9]+', 0)", []],
    ["'123 abc 456'.findAll('[0-9]+', -1)", ['123', '456']],
    ["'baaac'.findAll('a*')", ['', 'aaa', '']],
    ["'Hello World'.find('(?i)world')", 'World'],
    ["'a\\nb'.findAll('(?s)a.b')", ['a\nb']],
    ["'ABC'.matches('(?i)^abc$') && matches('ABC', '(?i)^abc$')", true],
    ["'abc'.matches('^b') || matches('abc', '^b')", false],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test('an invalid pattern is an error', () => {
    expect(evaluate("'x'.find('(')")).toEqual({ error: expect.stringMatching(/^Illegal regex: /) });
    expect(evaluate("'x'.findAll('[')")).toEqual({ error: expect.stringMatching(/^Illegal regex: /) });
  });
});

describe('regex library with RE2', () => {
  test('a pattern that backtracks exponentially in ECMAScript runs in linear time', () => {
    const started = Date.now();
    expect(evaluate(`'${'a'.repeat(40)}!'.matches('^(a+)+$')`)).toBe(false);
    expect(evaluate(`'${'a'.repeat(40)}!'.find('(a|aa)+$')`)).toBe('');
    expect(evaluate(`'${'a'.repeat(40)}!'.findAll('(a*)*b')`)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test.each([
    ["'aXb'.matches('a\\\\pLb')", true],
    ["'ab'.matches('(?U)a+?')", true],
    ["'x😀y'.find('.y')", '😀y'],
    ["'baaab😀a'.findAll('a*')", ['', 'aaa', '', 'a']],
  ])('RE2 syntax: %s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test("what RE2 does not have is Go's error", () => {
    expect(evaluate("'x'.find(string('(?=x)'))")).toEqual({ error: 'Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`' });
    expect(evaluate("'aa'.matches(string('(a)\\\\1'))")).toEqual({ error: 'error parsing regexp: invalid escape sequence: `\\1`' });
  });
});
