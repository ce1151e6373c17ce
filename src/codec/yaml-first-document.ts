/**
 * A document marker: `---` or `...` at the start of a line, followed by a blank or the line's end
 * (libyaml's scanner, yaml_parser_fetch_next_token, takes nothing else for one).
 */
const MARKER = /^(?:---|\.\.\.)(?=[ \t]|$)/gm;

/**
 * What may come before a document's `---`: blank and comment lines, directives, a byte order mark.
 * A lone `\r` is a line break only where no `\n` follows: were `\r\n` also readable as `\r` and an
 * empty line, a text that is not a preamble would be tried every way its CRLFs split, 2^lines.
 */
const PREAMBLE = /^\uFEFF?(?:(?:[ \t]*(?:#[^\r\n]*)?|%[^\r\n]*)(?:\r\n|\r(?!\n)|\n))*$/;

/**
 * The text of a YAML stream's first document. sigs.k8s.io/yaml's YAMLToJSON and YAMLToJSONStrict
 * read with go-yaml v2's Unmarshal, whose parser (decoder.go, parser.parse) stops after the first
 * document: what follows the next `---` or `...` is never parsed, so a broken later document, or
 * one that repeats a key, changes nothing. A `---` at a line's start cannot be inside a block
 * scalar (its lines are indented); inside a quoted scalar or a flow collection it ends the first
 * document too early, which go-yaml refuses as well.
 */
export function firstYamlDocument(text: string): string {
  let opened = false;
  for (const marker of text.matchAll(MARKER)) {
    // The first document's own `---`, after nothing but a preamble.
    if (!opened && marker[0] === '---' && PREAMBLE.test(text.slice(0, marker.index))) {
      opened = true;
      continue;
    }
    return text.slice(0, marker.index);
  }
  return text;
}
