import { EVENT_MAPPING, EVENT_POP, EVENT_SCALAR, EVENT_SEQUENCE, getScalarValue, parseEvents } from 'js-yaml';

/** Keys written twice in one object: what a strict decoder reports and a lenient one silently overwrites. */

/**
 * Paths of repeated keys in a JSON text, e.g. "metadata.name". Meant for text that has parsed;
 * on anything else it stops at the end of the input rather than trust its shape.
 */
export function jsonDuplicateFields(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return i <= text.length ? (JSON.parse(text.slice(start, i)) as string) : '';
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      while (i < text.length) {
        ws();
        const key = str();
        const child = path ? `${path}.${key}` : key;
        if (seen.has(key)) found.push(child);
        seen.add(key);
        ws();
        i++; // ':'
        value(child);
        ws();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; i < text.length; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') {
      str();
    } else {
      while (i < text.length && !',}] \t\n\r'.includes(text[i])) i++;
    }
  };
  value('');
  return found;
}

export interface YamlDuplicate {
  line: number;
  key: string;
}

/** Repeated mapping keys in a YAML text, with their 1-based lines, as go-yaml reports them. */
export function yamlDuplicateKeys(text: string): YamlDuplicate[] {
  const found: YamlDuplicate[] = [];
  // Each open collection: for mappings, the keys seen and whether the next scalar is a key.
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  const consumed = (): void => {
    const top = stack[stack.length - 1];
    if (top?.keys) top.expectKey = !top.expectKey;
  };
  for (const event of parseEvents(text, {})) {
    if (event.type === EVENT_MAPPING || event.type === EVENT_SEQUENCE) {
      // A collection in a value position consumes that value.
      const top = stack[stack.length - 1];
      if (top?.keys && !top.expectKey) top.expectKey = true;
      else if (top?.keys) top.expectKey = false;
      stack.push({ keys: event.type === EVENT_MAPPING ? new Set() : null, expectKey: true });
    } else if (event.type === EVENT_POP) {
      stack.pop();
    } else if (event.type === EVENT_SCALAR) {
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = String(getScalarValue(text, event));
        if (top.keys.has(key)) found.push({ line: lineOf((event as { valueStart: number }).valueStart), key });
        top.keys.add(key);
      }
      consumed();
    } else {
      consumed();
    }
  }
  return found;
}
