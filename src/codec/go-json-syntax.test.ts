import { runWalk } from '../api/loop-slices';
import { goJsonSyntaxErrorWalk } from './go-json-syntax';

const syntaxError = (text: string | Buffer): string | null => runWalk(goJsonSyntaxErrorWalk(typeof text === 'string' ? Buffer.from(text) : text));

describe("encoding/json's syntax errors", () => {
  test.each([
    ['{"a":1,}', `invalid character '}' looking for beginning of object key string`],
    ['{"a" "b"}', `invalid character '"' after object key`],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', `invalid character '2' after array element`],
    ['[1,]', `invalid character ']' looking for beginning of value`],
    ['xyz', `invalid character 'x' looking for beginning of value`],
    ["{'a':1}", `invalid character '\\'' looking for beginning of object key string`],
    ['{"a":tru}', `invalid character '}' in literal true (expecting 'e')`],
    ['fals', `invalid character ' ' in literal false (expecting 'e')`],
    ['nul', `invalid character ' ' in literal null (expecting 'l')`],
    ['[1,2', 'unexpected end of JSON input'],
    ['{"a":"b', 'unexpected end of JSON input'],
    ['  ', 'unexpected end of JSON input'],
    ['{"a":"b\u0001"}', `invalid character '\\x01' in string literal`],
    ['"a\tb"', `invalid character '\\t' in string literal`],
    ['"\\q"', `invalid character 'q' in string escape code`],
    ['"\\u12g4"', `invalid character 'g' in \\u hexadecimal character escape`],
    ['01', `invalid character '1' after top-level value`],
    ['{}x', `invalid character 'x' after top-level value`],
    ['{"a":1}}', `invalid character '}' after top-level value`],
    ['-', `invalid character ' ' in numeric literal`],
    ['-a', `invalid character 'a' in numeric literal`],
    ['1.', `invalid character ' ' after decimal point in numeric literal`],
    ['1.5e', `invalid character ' ' in exponent of numeric literal`],
    ['1e+x', `invalid character 'x' in exponent of numeric literal`],
    ['1.e5', `invalid character 'e' after decimal point in numeric literal`],
    ['{]', `invalid character ']' looking for beginning of object key string`],
    ['{"a" 1}', `invalid character '1' after object key`],
    ['12a', `invalid character 'a' after top-level value`],
    ['trUe', `invalid character 'U' in literal true (expecting 'u')`],
    ['nul1', `invalid character '1' in literal null (expecting 'l')`],
    ["'a'", `invalid character '\\'' looking for beginning of value`],
    ['\u00e9', `invalid character 'Ã' looking for beginning of value`],
    ['[\u0000]', `invalid character '\\x00' looking for beginning of value`],
  ])('%s', (text, message) => {
    expect(syntaxError(text)).toBe(message);
  });

  test('a byte past ASCII is quoted as the rune of its value, as a byte order mark shows', () => {
    expect(syntaxError('\ufeff{}')).toBe(`invalid character 'ï' looking for beginning of value`);
    expect(syntaxError(Buffer.from([0x5b, 0x85, 0x5d]))).toBe(`invalid character '\\u0085' looking for beginning of value`);
  });

  test('valid documents have no error, nested past what JSON.parse is given here too', () => {
    for (const text of ['{}', ' [] ', '{"a":[1,-0.5e+3,true,false,null,"\\u00e9\\n"],"b":{}}', '0', '"x"', '[[[[]]]]']) expect(syntaxError(text)).toBeNull();
    expect(syntaxError('['.repeat(10000) + ']'.repeat(10000))).toBeNull();
    expect(syntaxError('['.repeat(10001) + ']'.repeat(10001))).toBe(`invalid character '[' exceeded max depth`);
  });
});
