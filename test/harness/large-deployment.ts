/**
 * A Deployment of the given containers, with managed fields that own each of them: a large list
 * and a large map in one object, for the tests of encoders that write such values in slices.
 */
export function deploymentOf<C extends { name: string }>(containers: C[]) {
  const owned = Object.fromEntries(containers.map((c) => [`k:{"name":"${c.name}"}`, { '.': {} }]));
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'd',
      labels: { a: 'b' },
      managedFields: [
        { manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': owned } } } } },
      ],
    },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers, volumes: [{ name: 'v', emptyDir: {} }] } },
    },
  };
}
