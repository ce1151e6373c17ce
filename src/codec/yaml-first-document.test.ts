import { firstYamlDocument } from './yaml-first-document';

// Each text's first document as go-yaml v2's Unmarshal reads it (checked against gopkg.in/yaml.v2 2.4.0).
describe('firstYamlDocument', () => {
  test.each([
    ['a: 1\n---\nb: [\n', 'a: 1\n'],
    ['a: 1\n--- \nb: [\n', 'a: 1\n'],
    ['a: 1\n---\t\nb: [\n', 'a: 1\n'],
    ['a: 1\r\n---\r\nb: [\r\n', 'a: 1\r\n'],
    ['a: 1\r---\rb: [\r', 'a: 1\r'],
    ['a: 1\n---', 'a: 1\n'],
    ['a: 1\n... # c\nb: [\n', 'a: 1\n'],
    ['# c\n%YAML 1.1\n---\na: 1\n---\nb: [\n', '# c\n%YAML 1.1\n---\na: 1\n'],
    ['\ufeffa: 1\n---\nb: [\n', '\ufeffa: 1\n'],
    ['---\n---\nb: [\n', '---\n'],
    ['--- {a: 1}\n--- [\n', '--- {a: 1}\n'],
  ])('%j', (text, first) => {
    expect(firstYamlDocument(text)).toBe(first);
  });

  test.each([['a: 1\n----\nb: 1\n'], ['a: 1\n---x\n'], ['a: |\n  ---\n'], ['a: 1\n']])('no later document in %j', (text) => {
    expect(firstYamlDocument(text)).toBe(text);
  });

  test('a `...` before any content ends an empty first document', () => {
    expect(firstYamlDocument('...\na: 1\n')).toBe('');
  });

  // Read as \r and an empty line too, each CRLF doubled the ways to try: 28 lines took seconds, 40 days.
  test('a CRLF text whose lines before the first `---` are not all a preamble is read in linear time', () => {
    const text = `${'# a comment\r\n'.repeat(28)}a: 1\r\n---\r\nb: 2\r\n`;
    const started = Date.now();
    expect(firstYamlDocument(text)).toBe(text.slice(0, text.indexOf('---')));
    expect(Date.now() - started).toBeLessThan(500);
    expect(firstYamlDocument(`${'\r\n'.repeat(200)}---\r\na: 1\r\n---\r\n`)).toBe(`${'\r\n'.repeat(200)}---\r\na: 1\r\n`);
  });
});
