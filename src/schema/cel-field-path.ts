import type { JSONSchemaProps } from './json-schema-props';

/**
 * A validation rule's `fieldPath`, read as apiextensions' ValidFieldPath reads it: field and map
 * accessors only (`.spec.name`, `['a.b']`, `.labels['x']`), no list indices, each naming a
 * property of the node it is applied to, or any key of a map (additionalProperties).
 */

/** ValidFieldPath's scanner: `.`, `[` and `]` alone, a single-quoted string whole, the text between them. */
function* tokens(path: string): Generator<string> {
  let at = 0;
  while (at < path.length) {
    if (path[at] === "'") {
      let end = at + 1;
      while (end < path.length && !(path[end] === "'" && path[end - 1] !== '\\')) end++;
      yield path.slice(at, end + 1);
      at = end + 1;
    } else if ('.[]'.includes(path[at])) {
      yield path[at++];
    } else {
      let end = at;
      while (end < path.length && !'.[]'.includes(path[end])) end++;
      yield path.slice(at, end);
      at = end;
    }
  }
}

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

/** unescapeSingleQuote: the string's escapes resolved, or null if one is unknown. */
function unescape(quoted: string): string | null {
  let valid = true;
  const text = quoted.replace(/\\[^\n]/g, (escape) => {
    const char = ESCAPES[escape[1]];
    if (char === undefined) valid = false;
    return char ?? '';
  });
  return valid ? text : null;
}

/**
 * The path as kube's field.Path prints it ("spec.name", "labels[x]"), which it appends to the
 * failing node's path at run time; or null when the path is malformed or names no field of
 * `schema` (kube: "must be a valid path").
 */
export function normalizedFieldPath(path: string, schema: JSONSchemaProps): string | null {
  let node: JSONSchemaProps | undefined = schema;
  let printed = '';
  // appendToPath: a property by name where the node has properties, else any key of its map
  const step = (name: string): boolean => {
    if (node === undefined) return false;
    if (node.properties && Object.keys(node.properties).length > 0) {
      if (!Object.hasOwn(node.properties, name)) return false;
      node = node.properties[name];
      printed += printed ? `.${name}` : name;
      return true;
    }
    if (node.additionalProperties === undefined) return false;
    node = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
    printed += `[${name}]`;
    return true;
  };
  const scan = tokens(path);
  const next = (): string | undefined => scan.next().value ?? undefined;
  for (let token = next(); token !== undefined; token = next()) {
    if (token === '.') {
      const name = next();
      if (name === undefined || !step(name)) return null;
    } else if (token === '[') {
      const quoted = next();
      if (quoted === undefined || quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return null;
      const name = unescape(quoted.slice(1, -1));
      if (name === null || !step(name) || next() !== ']') return null;
    } else {
      return null;
    }
  }
  return printed;
}
