const { api, startWithCrds, widget } = require('./widgets');

let kapi;
beforeAll(async () => {
  kapi = await startWithCrds();
});
afterAll(() => kapi?.stop());

test('suite 1: its own Widgets only, validated by the CRD schema', async () => {
  const widgets = '/apis/example.com/v1/namespaces/default/widgets';
  expect((await api(kapi, 'POST', widgets, widget('w-1', 1))).status).toBe(201);
  const list = await api(kapi, 'GET', widgets);
  expect(list.body.items.map((w) => w.metadata.name)).toEqual(['w-1']);
  const invalid = await api(kapi, 'POST', widgets, widget('bad', 0));
  expect(invalid.status).toBe(422);
  expect(invalid.body.reason).toBe('Invalid');
});

test('suite 1: a kubeconfig file for kubectl and client-node', () => {
  expect(require('node:fs').readFileSync(kapi.kubeconfigPath, 'utf8')).toBe(kapi.kubeconfig);
  expect(kapi.kubeconfig).toContain(`server: ${kapi.url}`);
});
