import { randomBytes } from 'node:crypto';
import { runWalkInSlices, type Walk } from '../api/loop-slices';
import { setOwn } from '../api/types';
import { isContainer, LARGE, sizeOf, smallInOneGo, type Container } from './large-values';
import { encodeYaml, yamlText } from './yaml';

/**
 * An object's YAML for a request, in slices: a large list or map held under a mapping key (a
 * Deployment's 20,000 containers, the managed fields' sets) is left out of one js-yaml dump of the
 * rest, as a placeholder, and its entries are dumped one by one (LARGE entries or more), a few per slice, and indented to
 * where js-yaml writes them. The bytes are encodeYaml's (a 20,000-container Deployment's YAML took
 * 0.3-1.4 s in one piece).
 */

/** Entries dumped between two yields of the walk. */
const ENTRIES_PER_YIELD = 64;

/**
 * `value` with every large container under a mapping key replaced by a placeholder string (the
 * containers on the way copied, nothing else); the large ones by placeholder.
 */
function* withPlaceholders(value: Container, tag: string, large: Map<string, Container>): Walk<Container> {
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    for (const item of value) copy.push(isContainer(item) ? yield* withPlaceholders(item, tag, large) : item);
    return copy;
  }
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (isContainer(child) && sizeOf(child) >= LARGE) {
      const placeholder = `${tag}-${large.size}`;
      large.set(placeholder, child);
      setOwn(copy, key, placeholder);
    } else setOwn(copy, key, isContainer(child) ? yield* withPlaceholders(child, tag, large) : child);
  }
  yield;
  return copy;
}

/** A dumped entry's lines under a key at column `column`: js-yaml indents a key's block two further, a list item's lines after its "- ". */
function indented(text: string, column: number, list: boolean): string {
  const pad = ' '.repeat(column + 2);
  const lines = text.slice(0, -1).split('\n');
  return lines.map((line, i) => (list ? `${pad}${i === 0 ? '- ' : '  '}${line}` : `${pad}${line}`)).join('\n');
}

/** The entries of a large container, as js-yaml writes them under a key at `column`. */
function* entries(container: Container, column: number, out: string[]): Walk<void> {
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      out.push(`\n${indented(yamlText(container[i]), column, true)}`);
      if ((i + 1) % ENTRIES_PER_YIELD === 0) yield;
    }
    return;
  }
  // sortKeys: js-yaml sorts a mapping's keys with Array.prototype.sort.
  const keys = Object.keys(container).sort();
  for (let i = 0; i < keys.length; i++) {
    out.push(`\n${indented(yamlText({ [keys[i]]: container[keys[i]] }), column, false)}`);
    if ((i + 1) % ENTRIES_PER_YIELD === 0) yield;
  }
}

/** Where a mapping's key starts on its line: after the indentation and the "- " of the list items it opens. */
const keyColumn = (line: string): number => /^(?: |- )*/.exec(line)![0].length;

function* yamlWalk(value: Container): Walk<Buffer> {
  // A placeholder no value holds: plain, so that js-yaml writes it unquoted after its key.
  const tag = `kapi-yaml-piece-${randomBytes(8).toString('hex')}`;
  const large = new Map<string, Container>();
  const skeleton = yield* withPlaceholders(value, tag, large);
  const out: string[] = [];
  const bytes: Buffer[] = [];
  for (const line of yamlText(skeleton).split('\n')) {
    const at = line.indexOf(`: ${tag}-`);
    const container = at < 0 ? undefined : large.get(line.slice(at + 2));
    if (container === undefined) {
      out.push(`${out.length === 0 && bytes.length === 0 ? '' : '\n'}${line}`);
      continue;
    }
    out.push(`${out.length === 0 && bytes.length === 0 ? '' : '\n'}${line.slice(0, at + 1)}`);
    yield* entries(container, keyColumn(line), out);
    bytes.push(Buffer.from(out.join('')));
    out.length = 0;
    yield;
  }
  bytes.push(Buffer.from(out.join('')));
  return Buffer.concat(bytes);
}

/** encodeYaml's bytes, encoded in slices between other requests when `value` holds a large list or map. */
export function yamlInSlices(value: unknown, slice: () => Promise<void>): Promise<Buffer> {
  if (!isContainer(value) || smallInOneGo(value)) return Promise.resolve(encodeYaml(value));
  return runWalkInSlices(yamlWalk(value), slice);
}
