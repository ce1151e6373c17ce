import { fieldSetOf, merge } from './typed-ops';
import { kindSchema } from './typed-schema';

const pod = kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;

describe('keyed lists whose keys have defaults', () => {
  test('an item without its protocol is keyed with the default, as structured-merge-diff keys it', () => {
    const set = fieldSetOf({ spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } }, pod);
    expect(set.toFieldsV1()).toEqual({
      'f:spec': {
        'f:containers': {
          'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } },
        },
      },
    });
  });

  test('merging it into the defaulted live item changes nothing, where it used to add a second port', () => {
    const live = { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } };
    expect(merge(live, { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } }, pod)).toEqual(live);
    const udp = merge(live, { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'UDP' }] }] } }, pod) as typeof live;
    expect(udp.spec.containers[0].ports).toEqual([
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 80, protocol: 'UDP' },
    ]);
  });
});
