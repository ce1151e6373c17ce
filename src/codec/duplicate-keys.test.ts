import { jsonDuplicateFields, repeatsNoKey } from './duplicate-keys';
import { parseJsonText } from './json';

describe('jsonDuplicateFields', () => {
  it('finds nothing in a document without repeats', () => {
    expect(jsonDuplicateFields('{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}')).toEqual([]);
  });

  it('names repeated keys by their path, through objects and arrays', () => {
    const text = '{"kind":"Pod","metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"x"},{"name":"y","image":"i","image":"j"}]},"kind":"Pod"}';
    expect(jsonDuplicateFields(text)).toEqual(['metadata.name', 'spec.containers[1].image', 'kind']);
  });

  it('reads keys with escapes and ignores braces, commas and quotes inside strings', () => {
    const text = '{"a\\u0062":1,"ab":2,"s":"{\\"ab\\":1,","t":[",{"],"ab":3}';
    expect(jsonDuplicateFields(text)).toEqual(['ab', 'ab']);
  });

  it('counts array positions across nested arrays and scalars', () => {
    expect(jsonDuplicateFields('[1,[2,3],{"k":1,"k":2}]')).toEqual(['[2].k']);
    expect(jsonDuplicateFields('{"a":[[{"x":1}],[{"x":1,"x":2}]]}')).toEqual(['a[1][0].x']);
  });

  it('stops at the end of text it cannot trust', () => {
    expect(jsonDuplicateFields('{"a":1,"a')).toEqual([]);
    expect(jsonDuplicateFields('{"a":{"b":1,"b":2')).toEqual(['a.b']);
  });
});

describe('repeatsNoKey', () => {
  const noRepeats = (text: string): boolean => {
    const { value, members } = parseJsonText(text);
    return repeatsNoKey(value, members);
  };

  it('agrees with the scan for texts with and without repeated keys', () => {
    const texts = [
      '{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}',
      '{"kind":"Pod","metadata":{"name":"a","name":"b"}}',
      '{"a\\u0062":1,"ab":2,"s":"{\\"ab\\":1,","t":[",{"],"ab":3}',
      '{"s":"a:b:c","t":{"u":"::"}}',
      '[1,[2,3],{"k":1,"k":2}]',
      '{"a":[[{"x":1}],[{"x":1,"x":2}]]}',
      '{"__proto__":{"x":1},"y":{}}',
      '"text"',
      '[]',
    ];
    for (const text of texts) expect([text, noRepeats(text)]).toEqual([text, jsonDuplicateFields(text).length === 0]);
  });
});
