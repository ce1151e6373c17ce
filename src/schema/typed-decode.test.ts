import { typedDecode, typedDecodeInSlices } from './typed-decode';
import { kindSchema } from './typed-schema';

describe('typedDecodeInSlices', () => {
  const schema = kindSchema({ group: 'apps', version: 'v1', kind: 'Deployment' })!;
  const deployment = (): Record<string, unknown> => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { a: null } },
    spec: {
      selector: { matchLabels: { app: 'd' } },
      template: {
        spec: { containers: Array.from({ length: 1000 }, (_, i) => ({ name: `c${i}`, image: 'x', ports: [], ...(i === 700 ? { bogus: 1 } : {}) })) },
      },
    },
  });

  test('reports and prunes what typedDecode does, yielding between a long list’s items', async () => {
    const whole = deployment();
    const expected = typedDecode(whole, schema);
    let slices = 0;
    const sliced = deployment();
    const report = await typedDecodeInSlices(sliced, schema, async () => {
      slices++;
    });
    expect(report).toEqual(expected);
    expect(report.unknown).toEqual(['spec.template.spec.containers[700].bogus']);
    expect(sliced).toEqual(whole);
    expect((sliced.metadata as { labels: object }).labels).toEqual({ a: '' });
    expect(slices).toBeGreaterThanOrEqual(Math.floor(1000 / 64));
  });

  test('the first type error ends the walk, as in one piece', async () => {
    const obj = deployment();
    ((obj.spec as { template: { spec: { containers: object[] } } }).template.spec.containers[3] as { image: unknown }).image = 5;
    const report = await typedDecodeInSlices(obj, schema, async () => {});
    expect(report.typeError).toBe('json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string');
  });
});
