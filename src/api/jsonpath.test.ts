import { goJsonMarshal } from './go-json';
import { findResults, goFloatText, JsonPathEvalError, JsonPathParseError, parseJsonPath, printResult } from './jsonpath';

const pod = {
  metadata: {
    name: 'web',
    labels: { 'app.kubernetes.io/name': 'web', tier: 'front' },
    annotations: { 'a.b': 'dotted' },
  },
  spec: { replicas: 3, ratio: 0.5, paused: false, ports: [80, 443, 8080, 9090] },
  status: {
    conditions: [
      { type: 'Ready', status: 'True', priority: 2 },
      { type: 'Synced', status: 'False', priority: 5 },
      { type: 'Healthy', status: 'True', priority: 7, reason: 'Fine' },
    ],
  },
};

/** The results of the column path `{path}`, with missing keys allowed as printer columns do. */
function column(path: string, data: unknown = pod): unknown[] {
  return findResults(parseJsonPath(`{${path}}`), data, { allowMissingKeys: true })[0];
}

function parseError(template: string): string {
  try {
    parseJsonPath(template);
  } catch (e) {
    expect(e).toBeInstanceOf(JsonPathParseError);
    return (e as Error).message;
  }
  throw new Error(`${template} parsed`);
}

function evalError(path: string, data: unknown = pod, allowMissingKeys = true): string {
  try {
    findResults(parseJsonPath(`{${path}}`), data, { allowMissingKeys });
  } catch (e) {
    expect(e).toBeInstanceOf(JsonPathEvalError);
    return (e as Error).message;
  }
  throw new Error(`${path} evaluated`);
}

describe('fields', () => {
  test.each([
    ['.metadata.name', ['web']],
    ['$.metadata.name', ['web']],
    ['.spec.replicas', [3]],
    ['.spec', [pod.spec]],
    ['.metadata.labels.app\\.kubernetes\\.io/name', ['web']],
    ['.metadata.labels.tier', ['front']],
    ["['metadata']['name']", ['web']],
    ["['metadata'].name", ['web']],
  ])('%s', (path, expected) => expect(column(path)).toEqual(expected));

  test('missing keys yield nothing when allowed, an error otherwise', () => {
    expect(column('.status.phase')).toEqual([]);
    expect(column('.nothing.at.all')).toEqual([]);
    expect(evalError('.status.phase', pod, false)).toBe('phase is not found');
  });

  test('a field of a scalar, an array or null is missing', () => {
    expect(column('.metadata.name.first')).toEqual([]);
    expect(column('.status.conditions.type')).toEqual([]);
    expect(column('.a.b', { a: null })).toEqual([]);
  });

  test("a quoted key is read as a dotted path, so ['a.b'] is a.b (client-go's behaviour)", () => {
    expect(column(".metadata.annotations['a.b']")).toEqual([]);
    expect(column(".x['a.b']", { x: { a: { b: 1 } } })).toEqual([1]);
    expect(column('.metadata.annotations.a\\.b')).toEqual(['dotted']);
  });

  test('a double-quoted key is not an index', () => {
    expect(parseError('{.metadata["name"]}')).toBe('invalid array index "name"');
  });
});

describe('arrays', () => {
  test.each([
    ['.spec.ports[0]', [80]],
    ['.spec.ports[3]', [9090]],
    ['.spec.ports[-1]', [9090]],
    ['.spec.ports[-2]', [8080]],
    ['.spec.ports[*]', [80, 443, 8080, 9090]],
    ['.spec.ports.*', [80, 443, 8080, 9090]],
    ['.spec.ports[1:3]', [443, 8080]],
    ['.spec.ports[:2]', [80, 443]],
    ['.spec.ports[2:]', [8080, 9090]],
    ['.spec.ports[-1:]', [9090]],
    ['.spec.ports[::2]', [80, 8080]],
    ['.spec.ports[1::2]', [443, 9090]],
    ['.spec.ports[0,2]', [80, 8080]],
    ['.spec.ports[1:1]', []],
    ['.status.conditions[*].type', ['Ready', 'Synced', 'Healthy']],
    ['.status.conditions[1].status', ['False']],
    ['.metadata.labels.*', ['web', 'front']],
  ])('%s', (path, expected) => expect(column(path)).toEqual(expected));

  test('indexes out of range are errors, not empty results', () => {
    expect(evalError('.spec.ports[4]')).toBe('array index out of bounds: index 4, length 4');
    expect(evalError('.spec.ports[0:9]')).toBe('array index out of bounds: index 8, length 4');
    expect(evalError('.status.conditions[-1].type', { status: { conditions: [] } })).toBe('array index out of bounds: index -1, length 0');
    expect(evalError('.spec.ports[3:1]')).toBe('starting index 3 is greater than ending index 1');
    expect(evalError('.spec.ports[::0]')).toBe('step must be > 0');
  });

  test('indexing a map or a string is an error; null is skipped', () => {
    expect(evalError('.metadata.labels[0]')).toBe('map[string]interface {} is not array or slice');
    expect(evalError('.metadata.name[0]')).toBe('string is not array or slice');
    expect(column('.a[0]', { a: null })).toEqual([]);
  });

  test('a wildcard over a string visits its bytes', () => {
    expect(column('.s.*', { s: 'hé' })).toEqual([0x68, 0xc3, 0xa9]);
  });
});

describe('recursive descent', () => {
  test('collects a name at every depth', () => {
    expect(column('..type')).toEqual(['Ready', 'Synced', 'Healthy']);
    expect(column('..name')).toEqual(['web']);
    expect(column('...type')).toEqual(['Ready', 'Synced', 'Healthy']);
    expect(column('.status..reason')).toEqual(['Fine']);
  });

  test('visits containers with children and non-empty strings, not other leaves', () => {
    expect(column('..', [1, 2, 3])).toEqual([[1, 2, 3]]);
    expect(column('..', { a: {}, b: 'x', c: 1 })).toEqual([{ a: {}, b: 'x', c: 1 }, 'x']);
  });

  test('two in a row do not parse', () => {
    expect(parseError('{....type}')).toBe('invalid multiple recursive descent');
  });
});

describe('filters', () => {
  test.each([
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    [".status.conditions[?(@.type=='Synced')].status", ['False']],
    ['.status.conditions[?(@.status!="True")].type', ['Synced']],
    ['.status.conditions[?(@.priority<5)].type', ['Ready']],
    ['.status.conditions[?(@.priority<=5)].type', ['Ready', 'Synced']],
    ['.status.conditions[?(@.priority>5)].type', ['Healthy']],
    ['.status.conditions[?(@.priority>=5)].type', ['Synced', 'Healthy']],
    ['.status.conditions[?(@.reason)].type', ['Healthy']],
    ['.status.conditions[?(@.type=="Missing")].status', []],
    ['.status.conditions[?(@.type < "S")].type', ['Ready', 'Healthy']],
    ['.items[?(@.on==true)].n', ['a']],
    ['.items[?(@.n=="c")].x', [-2]],
  ])('%s', (path, expected) =>
    expect(
      column(path, {
        ...pod,
        items: [
          { n: 'a', on: true, x: 1 },
          { n: 'b', on: false, x: 1.5 },
          { n: 'c', x: -2 },
        ],
      }),
    ).toEqual(expected),
  );

  test('numbers compare within their Go kind: float64 with float literals, int64 with integer ones', () => {
    expect(
      column('.items[?(@.x==1.5)].n', {
        items: [
          { n: 'a', x: 0.5 },
          { n: 'b', x: 1.5 },
        ],
      }),
    ).toEqual(['b']);
    expect(
      column('.items[?(@.x>-3)].n', {
        items: [
          { n: 'a', x: -4 },
          { n: 'b', x: -2 },
        ],
      }),
    ).toEqual(['b']);
  });

  test('an item without the compared field is skipped', () => {
    expect(column('.items[?(@.x==1)].n', { items: [{ n: 'a' }, { n: 'b', x: 1 }] })).toEqual(['b']);
  });

  test('comparisons across Go kinds are errors', () => {
    expect(evalError('.items[?(@.x=="1")]', { items: [{ x: 1 }] })).toBe('incompatible types for comparison');
    expect(evalError('.items[?(@.x==1.0)]', { items: [{ x: 1 }] })).toBe('incompatible types for comparison');
    expect(evalError('.items[?(@.x==1)]', { items: [{ x: 1.5 }] })).toBe('incompatible types for comparison');
    expect(evalError('.items[?(@.x<true)]', { items: [{ x: false }] })).toBe('invalid type for comparison');
    expect(evalError('.items[?(@.x==1)]', { items: [{ x: null }] })).toBe('invalid type for comparison');
    expect(evalError('.items[?(@.x<>1)]', { items: [{ x: 1 }] })).toBe('unrecognized filter operator <>');
  });

  test('filtering a map is an error; several values on one side too', () => {
    expect(evalError('.metadata[?(@.x)]')).toMatch(/is not array or slice and cannot be filtered$/);
    expect(evalError('.items[?(@.*==1)]', { items: [{ a: 1, b: 2 }] })).toBe('can only compare one element at a time');
  });

  test('filters parse with quotes holding brackets and parentheses', () => {
    expect(column('.items[?(@.n=="a)]")].v', { items: [{ n: 'a)]', v: 1 }] })).toEqual([1]);
  });
});

describe('templates', () => {
  test('text and several actions give one result list each', () => {
    const template = parseJsonPath('name: {.metadata.name} {.spec.replicas}');
    expect(findResults(template, pod, { allowMissingKeys: true })).toEqual([['name: '], ['web'], [' '], [3]]);
  });

  test('quoted strings and numbers are literals', () => {
    expect(column('"a\\tb"')).toEqual(['a\tb']);
    expect(column("'x'")).toEqual(['x']);
    expect(column('42')).toEqual([42]);
  });

  test('identifiers other than true and false are errors when evaluated', () => {
    expect(evalError('metadata')).toBe('unrecognized identifier metadata');
  });
});

describe('parse errors (client-go messages)', () => {
  test.each([
    ['{.metadata', 'unclosed action'],
    ['{.spec.ports[0}', 'unterminated array'],
    ['{.spec.ports[x]}', 'invalid array index x'],
    ['{.spec.ports[-]}', 'array index - is not a number'],
    ['{.a[?(@.b=="c"}', 'unterminated filter'],
    ['{.a[?(@.b)x]}', 'unclosed array expect ]'],
    ['{"abc}', 'unterminated quoted string'],
    ['{"\\q"}', 'unquote string "\\q" error invalid syntax'],
    ['{.a #}', "unrecognized character in action: U+0023 '#'"],
    ['{1.2.3}', 'cannot parse number 1.2.3'],
    ['{.a[?(@.b==)]}', "unrecognized character in action: U+003D '='"],
  ])('%s', (template, message) => expect(parseError(template)).toBe(message));

  test('paths printer columns use parse', () => {
    for (const path of ['.spec.replicas', '.status.conditions[?(@.type=="Ready")].status', '.spec.ports[-1]', '..name', '.a[*].b']) {
      expect(() => parseJsonPath(`{${path}}`)).not.toThrow();
    }
  });
});

describe('printing (PrintResults)', () => {
  test.each([
    ['text', 'text'],
    [3, '3'],
    [-7, '-7'],
    [0.5, '0.5'],
    [1234567.5, '1.2345675e+06'],
    [123456.5, '123456.5'],
    [0.00001, '1e-05'],
    [1e21, '1e+21'],
    [true, 'true'],
    [null, '<no value>'],
    [{ b: 1, a: ['<x>', 2.5] }, '{"a":["\\u003cx\\u003e",2.5],"b":1}'],
    [[], '[]'],
  ])('%p', (value, text) => expect(printResult(value)).toBe(text));

  test('goFloatText and goJsonMarshal', () => {
    expect(goFloatText(100000.25)).toBe('100000.25');
    expect(goFloatText(0.0001)).toBe('0.0001');
    expect(goJsonMarshal({ z: '&', a: null })).toBe('{"a":null,"z":"\\u0026"}');
  });
});
