import { dump, load } from 'js-yaml';
import { DecodeError } from './decode-error';
import { withGoStrings } from './well-formed';
import { GO_YAML_SCHEMA } from './yaml-schema';
import { MAX_NESTING_DEPTH } from './json';
import { expandAliases } from './yaml-aliases';
import { firstYamlDocument } from './yaml-first-document';

/** YAML to a JSON value; a repeated key keeps its last value (strict field validation reports it). */
export function decodeYaml(body: Buffer): unknown {
  let value: unknown;
  const text = firstYamlDocument(body.toString('utf8'));
  try {
    value = load(text, LOAD_OPTIONS);
  } catch (err) {
    throw new DecodeError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  // After the aliases are expanded within their budget: the walks copy or visit what they walk.
  const expanded = expandAliases(value);
  if (/\.(?:inf|nan)/i.test(text)) refuseNonFinite(expanded);
  return withGoStrings(text, expanded);
}

const LOAD_OPTIONS = { json: true, maxDepth: MAX_NESTING_DEPTH, schema: GO_YAML_SCHEMA };

/** json.Marshal of what yaml.v2 read: an infinity or NaN fails it (UnsupportedValueError). */
function refuseNonFinite(value: unknown): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      const shown = Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
      throw new DecodeError(`error converting YAML to JSON: json: unsupported value: ${shown}`);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const v of Array.isArray(value) ? value : Object.values(value)) refuseNonFinite(v);
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
