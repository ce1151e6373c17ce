import { normalizedFieldPath } from './cel-field-path';
import type { JSONSchemaProps } from './json-schema-props';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        'a.b': { type: 'string' },
        "it's": { type: 'string' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        nested: { type: 'object', additionalProperties: { type: 'object', properties: { x: { type: 'integer' } } } },
        list: { type: 'array', items: { type: 'object', properties: { x: { type: 'integer' } } } },
      },
    },
  },
};

describe("a rule's fieldPath, read as ValidFieldPath reads it", () => {
  test('field and map accessors lead to the path kube appends at run time', () => {
    const valid: [string, string][] = [
      ['.spec', 'spec'],
      ['.spec.name', 'spec.name'],
      ["['spec']['a.b']", 'spec.a.b'],
      [".spec['it\\'s']", "spec.it's"],
      [".spec.labels['x.y']", 'spec.labels[x.y]'],
      ['.spec.labels.x', 'spec.labels[x]'],
      [".spec.nested['k'].x", 'spec.nested[k].x'],
    ];
    for (const [path, printed] of valid) expect([path, normalizedFieldPath(path, schema)]).toEqual([path, printed]);
    expect(normalizedFieldPath("['k']", { type: 'object', additionalProperties: { type: 'string' } })).toBe('[k]');
  });

  test('list indices, unknown fields, paths into scalars and malformed paths lead nowhere', () => {
    const invalid = [
      'spec',
      '.spec.missing',
      '.spec.list[0]',
      ".spec.list['0']",
      '.spec.list.x',
      '.spec.name.x',
      '.spec.',
      '..spec',
      ".spec['name'",
      '.spec[name]',
      ".spec['name",
      ".spec['\\q']",
      '. spec',
      ' ',
    ];
    for (const path of invalid) expect([path, normalizedFieldPath(path, schema)]).toEqual([path, null]);
  });
});
