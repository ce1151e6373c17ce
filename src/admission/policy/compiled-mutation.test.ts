import { kindSchema } from '../../schema/typed-schema';
import { toCel } from './cel';
import { compileMutatingPolicy, invokeMutatingPolicy, MutationError } from './compiled-mutation';

const policy = (mutations: unknown[]) => compileMutatingPolicy({ metadata: { name: 'p' }, spec: { mutations } });
const vars = (object: unknown) => ({ object: toCel(object), oldObject: null, request: toCel({}), params: null, namespaceObject: null, authorizer: new Map() });
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });
const apply = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const POD_SCHEMA = kindSchema({ group: '', version: 'v1', kind: 'Pod' });

describe('invokeMutatingPolicy', () => {
  test('each mutation sees the object the previous one left; jsonpatch.escapeKey escapes a key', () => {
    const compiled = policy([
      jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("a/b~c"), value: "1"}]'),
      jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/count", value: string(object.metadata.labels.size())}]'),
    ]);
    const out = invokeMutatingPolicy(compiled, { metadata: { name: 'x', labels: {} } }, vars, null, null);
    expect(out?.metadata.labels).toEqual({ 'a/b~c': '1', count: '1' });
  });

  test('a failed test operation leaves the object as it was; a patch that does not apply is an error', () => {
    const object = { metadata: { name: 'x' } };
    expect(
      invokeMutatingPolicy(
        policy([jsonPatch('[JSONPatch{op: "test", path: "/metadata/name", value: "y"}, JSONPatch{op: "remove", path: "/metadata/name"}]')]),
        object,
        vars,
        null,
        null,
      ),
    ).toEqual(object);
    expect(() => invokeMutatingPolicy(policy([jsonPatch('[JSONPatch{op: "remove", path: "/spec/missing"}]')]), object, vars, null, null)).toThrow(
      MutationError,
    );
  });

  test("an apply configuration merges a keyed list (containers by name) as the kind's schema says", () => {
    const pod = {
      metadata: { name: 'x' },
      spec: {
        containers: [
          { name: 'a', image: 'a:1' },
          { name: 'b', image: 'b:1' },
        ],
      },
    };
    const expression = 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "b", image: "b:2"}]}}';
    const out = invokeMutatingPolicy(policy([apply(expression)]), pod, vars, POD_SCHEMA, null);
    expect(out?.spec).toEqual({
      containers: [
        { name: 'a', image: 'a:1' },
        { name: 'b', image: 'b:2' },
      ],
    });
  });

  test('an expression that errs is a MutationError; one that does not compile is a configuration error', () => {
    expect(() =>
      invokeMutatingPolicy(policy([jsonPatch('[JSONPatch{op: "add", path: "/x", value: object.missing}]')]), { metadata: {} }, vars, null, null),
    ).toThrow(MutationError);
    expect(policy([jsonPatch('[JSONPatch{op: "add", path: nope}]')]).configurationError).toContain("undeclared reference to 'nope'");
  });

  test("each mutation has RuntimeCELCostBudget of its own, which the variables it reads first spend (dispatchOne's patcher budget)", () => {
    // each variable costs cel-go's ceil((100,000 + 1) * 0.1) * ceil(256 * 0.25) = 640,064 and more: 16 read by one mutation pass 10,000,000
    const costly = `object.data.k.matches('^[a-z]*$|${'q'.repeat(247)}')`;
    const variables = Array.from({ length: 16 }, (_, i) => ({ name: `v${i}`, expression: costly }));
    const reads = (from: number, to: number) =>
      variables
        .slice(from, to)
        .map((v) => `variables.${v.name}`)
        .join(' && ');
    const mutation = (condition: string) => jsonPatch(`${condition} ? [JSONPatch{op: "add", path: "/metadata/labels", value: {"ok": "1"}}] : []`);
    const object = { metadata: { name: 'x' }, data: { k: 'a'.repeat(100_000) } };
    const spec = (mutations: unknown[]) => compileMutatingPolicy({ metadata: { name: 'p' }, spec: { variables, mutations } });
    // 8 and 8 variables across two mutations: each within its own budget
    expect(invokeMutatingPolicy(spec([mutation(reads(0, 8)), mutation(reads(8, 16))]), object, vars, null, null)?.metadata.labels).toEqual({ ok: '1' });
    expect(() => invokeMutatingPolicy(spec([mutation(reads(0, 16))]), object, vars, null, null)).toThrow(
      new MutationError('validation failed due to running out of cost budget, no further validation rules will be run'),
    );
  });
});
