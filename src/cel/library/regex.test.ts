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
