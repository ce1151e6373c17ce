import { dump, load } from 'js-yaml';
import { DecodeError } from './decode-error';
import { withGoStrings } from './well-formed';
import { MAX_NESTING_DEPTH } from './json';
import { expandAliases } from './yaml-aliases';

/** YAML to a JSON value; a repeated key keeps its last value (strict field validation reports it). */
export function decodeYaml(body: Buffer): unknown {
  let value: unknown;
  const text = body.toString('utf8');
  try {
    value = load(text, { json: true, maxDepth: MAX_NESTING_DEPTH });
  } catch (err) {
    throw new DecodeError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  // After the aliases are expanded within their budget: the walk copies what it walks.
  return withGoStrings(text, expandAliases(value));
}

/** YAML as sigs.k8s.io/yaml writes it: keys sorted, no anchors. */
export function encodeYaml(value: unknown): Buffer {
  return Buffer.from(yamlText(value));
}

/**
 * Past this depth collections are written in flow style (`{a: {b: 1}}`): js-yaml's block style
 * costs time in the square of the depth (an object 990 levels deep took 0.5 s alone, 2.5 s in a
 * busy server, and held the event loop all that time). docs/divergences.md.
 */
const BLOCK_STYLE_DEPTH = 64;

export function yamlText(value: unknown): string {
  return dump(value, { sortKeys: true, noRefs: true, lineWidth: -1, flowLevel: BLOCK_STYLE_DEPTH });
}
