import { decodeYaml } from './yaml';
import { allowedAliasRatio } from './yaml-aliases';

/** Nine aliases a line, ten lines: 9^9 leaves from some 400 bytes. */
function aliasBomb(lines = 10, width = 9): string {
  const out = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < lines; i++)
    out.push(
      `a${i}: &a${i} [${Array(width)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return out.join('\n');
}

test('an alias bomb is refused at once, as go-yaml refuses it', () => {
  const started = Date.now();
  expect(() => decodeYaml(Buffer.from(aliasBomb()))).toThrow('error converting YAML to JSON: yaml: document contains excessive aliasing');
  expect(Date.now() - started).toBeLessThan(1000);
});

test('a self-containing anchor is refused', () => {
  expect(() => decodeYaml(Buffer.from('a: &a [*a]'))).toThrow('anchor value contains itself');
});

test('ordinary aliases are expanded into independent copies', () => {
  const value = decodeYaml(Buffer.from('a: &x {b: 1}\nc: *x\nd: &s str\ne: *s')) as Record<string, Record<string, number>>;
  expect(value).toEqual({ a: { b: 1 }, c: { b: 1 }, d: 'str', e: 'str' });
  value.a.b = 2;
  expect(value.c.b).toBe(1);
});

test('a document of many aliases under the small-document floor passes', () => {
  expect(() => decodeYaml(Buffer.from(aliasBomb(3, 9)))).not.toThrow();
});

test('depth is still limited, through aliases too', () => {
  const nest = (n: number, inner: string): string => `${'['.repeat(n)}${inner}${']'.repeat(n)}`;
  expect(() => decodeYaml(Buffer.from(`a: &a ${nest(600, '1')}\nb: ${nest(600, '*a')}`))).toThrow('exceeded max depth of 1000');
  expect(() => decodeYaml(Buffer.from(`a: &a ${nest(400, '1')}\nb: ${nest(400, '*a')}`))).not.toThrow();
});

test('the allowed share of aliases falls from 99% to 10% over 400k..4M nodes', () => {
  expect(allowedAliasRatio(1000)).toBe(0.99);
  expect(allowedAliasRatio(2_200_000)).toBeCloseTo(0.545);
  expect(allowedAliasRatio(5_000_000)).toBe(0.1);
});
