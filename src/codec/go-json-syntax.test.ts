import { goJsonSyntaxError } from './go-json-syntax';

test('encoding/json words for where its scanner stops', () => {
  const cases: [string, string | undefined][] = [
    ['', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['[1,', 'unexpected end of JSON input'],
    ['{}', undefined],
    [' [1, -2.5e+3, "x\\u00e9", true, null] ', undefined],
    ['-', 'unexpected end of JSON input'],
    ['7', undefined],
    ['{]', "invalid character ']' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['12a', "invalid character 'a' after top-level value"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['1.e5', "invalid character 'e' after decimal point in numeric literal"],
    ['1e+x', "invalid character 'x' in exponent of numeric literal"],
    ['01', "invalid character '1' after top-level value"],
    ['tru', 'unexpected end of JSON input'],
    ['trUe', "invalid character 'U' in literal true (expecting 'u')"],
    ['nul1', "invalid character '1' in literal null (expecting 'l')"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['\u00e9', "invalid character 'Ã' looking for beginning of value"],
    ['\ufeff{}', "invalid character 'ï' looking for beginning of value"],
    ['[\u0000]', "invalid character '\\x00' looking for beginning of value"],
  ];
  for (const [text, expected] of cases) expect([text, goJsonSyntaxError(text)]).toEqual([text, expected]);
});
