import { compileGoRegexp, findAllString, findString, goRegexpError, matchString } from './go-regexp';

describe("Go's regexp over RE2", () => {
  test('patterns that backtrack exponentially in ECMAScript run in linear time', () => {
    const started = Date.now();
    expect(matchString(compileGoRegexp('^(a+)+$'), `${'a'.repeat(5000)}!`)).toBe(false);
    expect(findAllString(compileGoRegexp('(a|aa)+c'), 'a'.repeat(5000), -1)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("FindString and FindAllString as Go's: leftmost-first, empty matches abutting a match skipped, n limits", () => {
    expect(findString(compileGoRegexp('a|ab'), 'xab')).toBe('a');
    expect(findString(compileGoRegexp('z'), 'xab')).toBe('');
    expect(findAllString(compileGoRegexp('a*'), 'baaab😀a', -1)).toEqual(['', 'aaa', '', 'a']);
    expect(findAllString(compileGoRegexp('[0-9]'), '1 2 3', 2)).toEqual(['1', '2']);
    expect(findAllString(compileGoRegexp('[0-9]'), '1 2 3', 0)).toEqual([]);
  });

  test("what RE2 does not have is Go's error, cached like a pattern that compiles", () => {
    expect(goRegexpError('(?=a)')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect(goRegexpError('(a)\\1')).toBe('error parsing regexp: invalid escape sequence: `\\1`');
    expect(goRegexpError('a{1001}')).toBe('error parsing regexp: invalid repeat count: `{1001}`');
    expect(goRegexpError('(?i)^\\p{Greek}+$')).toBeNull();
    expect(compileGoRegexp('^x$')).toBe(compileGoRegexp('^x$'));
  });
});
