import { parseEncryptionConfig } from './encryption-config';
import { transformerByKey } from './key-transformers';

const KEY = Buffer.alloc(32, 1).toString('base64');
const config = (resources: string[]) =>
  parseEncryptionConfig(
    `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: ${JSON.stringify(resources)}\n    providers:\n      - secretbox:\n          keys: [{ name: k, secret: ${KEY} }]\n`,
  );
const BUILT_INS = [
  { root: '/registry/secrets/', group: '', resource: 'secrets' },
  { root: '/registry/apiextensions.k8s.io/customresourcedefinitions/', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
];

describe('the transformer of an etcd key', () => {
  test('a custom resource is matched by <resource>.<group>, *.<group> and *.*, as a built-in is', () => {
    for (const rule of ['widgets.example.com', '*.example.com', '*.*']) {
      const of = transformerByKey(config([rule]), '/registry', BUILT_INS);
      expect([rule, of('/registry/example.com/widgets/default/w1') !== undefined]).toEqual([rule, true]);
      expect([rule, of('/registry/example.com/widgets/cluster-scoped') !== undefined]).toEqual([rule, true]);
    }
    const exact = transformerByKey(config(['widgets.example.com']), '/registry', BUILT_INS);
    expect(exact('/registry/example.com/gadgets/default/g1')).toBeUndefined();
    expect(exact('/registry/other.io/widgets/default/w1')).toBeUndefined();
  });

  test("a built-in's key space keeps its own rule; keys that are no custom resource's are never transformed", () => {
    const core = transformerByKey(config(['*.']), '/registry', BUILT_INS);
    expect(core('/registry/secrets/default/s')).toBeDefined();
    expect(core('/registry/example.com/widgets/default/w1')).toBeUndefined();
    const all = transformerByKey(config(['*.*']), '/registry/', BUILT_INS);
    expect(all('/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com')).toBeDefined();
    for (const key of ['/registry/masterleases/127.0.0.1', '/registry/health', '/other/example.com/widgets/default/w1', '/registry/example.com/widgets']) {
      expect([key, all(key)]).toEqual([key, undefined]);
    }
  });
});
