import { StatusError } from './errors';
import { matchesFields, parseFieldSelector } from './field-selector';

function parseError(selector: string): string {
  try {
    parseFieldSelector(selector);
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
    return (err as StatusError).message;
  }
  throw new Error(`${JSON.stringify(selector)} parsed`);
}

describe('parsing (fields.ParseSelector)', () => {
  test('the three operators; == means =', () => {
    expect(parseFieldSelector('metadata.name=a,spec.nodeName!=b,status.phase==Running')).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a' },
      { field: 'spec.nodeName', operator: '!=', value: 'b' },
      { field: 'status.phase', operator: '=', value: 'Running' },
    ]);
  });

  test('empty selector and empty terms select everything', () => {
    expect(parseFieldSelector('')).toEqual([]);
    expect(parseFieldSelector('a=b,')).toEqual([{ field: 'a', operator: '=', value: 'b' }]);
    expect(parseFieldSelector(',,a=b')).toHaveLength(1);
  });

  test('a term with neither field nor value selects everything', () => {
    for (const s of ['=', '==', '!=', '=,metadata.name=x']) {
      expect(parseFieldSelector(s)).toEqual(s.includes('metadata.name') ? [{ field: 'metadata.name', operator: '=', value: 'x' }] : []);
    }
    expect(parseFieldSelector('=x')).toEqual([{ field: '', operator: '=', value: 'x' }]);
  });

  test('an empty value is allowed', () => {
    expect(parseFieldSelector('spec.nodeName=')).toEqual([{ field: 'spec.nodeName', operator: '=', value: '' }]);
  });

  test('escapes: \\, \\= and \\\\ in values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b')).toEqual([{ field: 'metadata.name', operator: '=', value: 'a,b' }]);
    expect(parseFieldSelector('metadata.name=a\\=b')).toEqual([{ field: 'metadata.name', operator: '=', value: 'a=b' }]);
    expect(parseFieldSelector('metadata.name=a\\\\b')).toEqual([{ field: 'metadata.name', operator: '=', value: 'a\\b' }]);
    // An escaped backslash does not escape the comma after it.
    expect(parseFieldSelector('a=x\\\\,b=y')).toEqual([
      { field: 'a', operator: '=', value: 'x\\' },
      { field: 'b', operator: '=', value: 'y' },
    ]);
  });

  test('the first operator in the term splits it; the field is not trimmed', () => {
    expect(parseFieldSelector('a!=b')).toEqual([{ field: 'a', operator: '!=', value: 'b' }]);
    expect(parseFieldSelector(' a = b')).toEqual([{ field: ' a ', operator: '=', value: ' b' }]);
  });
});

describe('invalid selectors are 400 BadRequest', () => {
  test('a term without an operator', () => {
    expect(parseError('a=b,nonsense')).toBe("invalid selector: 'a=b,nonsense'; can't understand 'nonsense'");
    expect(parseError(' ')).toBe("invalid selector: ' '; can't understand ' '");
  });

  test('unknown escapes and a trailing backslash', () => {
    expect(parseError('a=b\\c')).toBe('invalid field selector: invalid escape sequence: \\c');
    expect(parseError('a=b\\')).toBe('invalid field selector: invalid escape sequence: \\');
  });

  test('a bare = or , in a value (Go prints the rune as a number)', () => {
    expect(parseError('a=b=c')).toBe('invalid field selector: unescaped character in value: 61');
    expect(parseError('a=b!=c')).toBe('invalid field selector: unescaped character in value: 61');
  });
});

describe('matching', () => {
  const fields: Record<string, string> = { 'metadata.name': 'a,b', 'spec.nodeName': '' };
  const get = (name: string): string => fields[name] ?? '';

  test.each([
    ['metadata.name=a\\,b', true],
    ['metadata.name!=a\\,b', false],
    ['spec.nodeName=', true],
    ['spec.nodeName!=', false],
    ['metadata.name=a\\,b,spec.nodeName=x', false],
  ])('%s -> %s', (selector, expected) => expect(matchesFields(parseFieldSelector(selector), get)).toBe(expected));
});
