import { kindSchema } from '../../schema/typed-schema';
import { typeCheck, type SchemaOf } from './type-checking';

const schemaOf: SchemaOf = (group, version, resource) => {
  if (group !== 'apps' || version !== 'v1' || resource !== 'deployments') return null;
  const gvk = { group, version, kind: 'Deployment' };
  return { gvk, schema: kindSchema(gvk)! };
};

const policy = (resources: string[], validations: { expression: string }[]) => ({
  metadata: { name: 'p' },
  spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources, operations: ['CREATE'] }] }, validations },
});

describe('typeCheck', () => {
  test('an undefined field of the matched kind is a warning naming the kind, one per mistake', () => {
    expect(
      typeCheck(policy(['deployments'], [{ expression: 'object.spec.replicas > 1' }, { expression: 'oldObject.spec.nope.deeper == 1' }]), schemaOf),
    ).toEqual([
      {
        fieldRef: 'spec.validations[1].expression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:15: undefined field 'nope'\n | oldObject.spec.nope.deeper == 1\n | ..............^",
      },
    ]);
  });

  test('an operator between a typed field and a literal of another type is a missing overload; one kind prefixes all its issues', () => {
    expect(
      typeCheck(policy(['deployments'], [{ expression: "object.spec.replicas > 'three' || object.spec.replicas < 2.5 || object.spec.paused == 1" }]), schemaOf),
    ).toEqual([
      {
        fieldRef: 'spec.validations[0].expression',
        warning: [
          "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'\n | object.spec.replicas > 'three' || object.spec.replicas < 2.5 || object.spec.paused == 1\n | .....................^",
          "ERROR: <input>:1:84: found no matching overload for '_==_' applied to '(bool, int)'\n | object.spec.replicas > 'three' || object.spec.replicas < 2.5 || object.spec.paused == 1\n | ...................................................................................^",
        ].join('\n'),
      },
    ]);
  });

  test('type meta, maps and free-form fields are not checked', () => {
    expect(typeCheck(policy(['deployments'], [{ expression: "object.apiVersion == 'apps/v1' && object.metadata.labels.anything == 'x'" }]), schemaOf)).toEqual(
      [],
    );
  });

  test('rules with wildcards, and kinds without a schema, are not checked', () => {
    expect(typeCheck(policy(['*'], [{ expression: 'object.nope' }]), schemaOf)).toEqual([]);
    expect(typeCheck(policy(['widgets'], [{ expression: 'object.nope' }]), schemaOf)).toEqual([]);
  });
});
