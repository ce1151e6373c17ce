import { eventually } from '../harness/crds';
import { kubectl, serverProcessForFile } from '../harness/process';

/** The endpoints, endpointslice and endpointslice-mirroring controllers, seen through kubectl. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);
const ENDPOINTS_DEPRECATED = 'Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n';
const apply = async (manifest: string, stderr = ''): Promise<void> => {
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], manifest);
  expect(res.stderr).toBe(stderr);
};
const json = async <T>(...args: string[]): Promise<T> => JSON.parse((await k(...args, '-o', 'json')).stdout) as T;

interface Slice {
  metadata: { name: string; generateName?: string; labels: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: unknown[] };
  addressType: string;
  endpoints?: { addresses: string[]; conditions: Record<string, boolean>; nodeName?: string; zone?: string; targetRef?: { name: string } }[];
  ports?: unknown[];
}
interface Endpoints {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  subsets?: { addresses?: { ip: string; nodeName?: string; targetRef?: { name: string } }[]; notReadyAddresses?: { ip: string }[]; ports?: unknown[] }[];
}

const slicesOf = async (service: string): Promise<Slice[]> =>
  (await json<{ items: Slice[] }>('get', 'endpointslices', '-l', `kubernetes.io/service-name=${service}`)).items;

/** A pod of app=web on node-a, whose status the simulated kubelet would write: an IP and the Ready condition. */
const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: web}}
spec:
  nodeName: node-a
  containers:
  - name: app
    image: nginx
    ports: [{name: http, containerPort: 8080}]
`;
const setStatus = async (name: string, ip: string, ready: boolean): Promise<void> => {
  const status = {
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
  };
  const res = await k('patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
  expect(res.stderr).toBe('');
};

test('a Service with 3 ready pods gets one EndpointSlice of 3 ready endpoints and an Endpoints object; an unready pod flips', async () => {
  await apply(`apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {topology.kubernetes.io/zone: zone-1}}
---
apiVersion: v1
kind: Service
metadata: {name: web, labels: {tier: front}}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
${pod('web-0')}---
${pod('web-1')}---
${pod('web-2')}`);
  const service = await json<{ metadata: { uid: string } }>('get', 'service', 'web');
  // Pods without an IP are in neither: the placeholder slice, and Endpoints without subsets.
  const placeholder = await eventually('the placeholder slice', async () => {
    const slices = await slicesOf('web');
    return slices.length === 1 ? slices[0] : undefined;
  });
  expect(placeholder.endpoints ?? []).toEqual([]);
  await setStatus('web-0', '10.244.0.10', true);
  await setStatus('web-1', '10.244.0.11', true);
  await setStatus('web-2', '10.244.0.12', true);

  const slice = await eventually('3 ready endpoints', async () => {
    const slices = await slicesOf('web');
    return slices.length === 1 && slices[0].endpoints?.filter((e) => e.conditions.ready).length === 3 ? slices[0] : undefined;
  });
  expect(slice.metadata.generateName).toBe('web-');
  expect(slice.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
  expect(slice.metadata.labels).toEqual({
    tier: 'front',
    'kubernetes.io/service-name': 'web',
    'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
  });
  expect(slice.metadata.ownerReferences).toEqual([
    { apiVersion: 'v1', kind: 'Service', name: 'web', uid: service.metadata.uid, controller: true, blockOwnerDeletion: true },
  ]);
  expect(slice.addressType).toBe('IPv4');
  expect(slice.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
  expect([...slice.endpoints!].sort((a, b) => a.addresses[0].localeCompare(b.addresses[0]))).toEqual(
    [0, 1, 2].map((i) => ({
      addresses: [`10.244.0.1${i}`],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'default', name: `web-${i}`, uid: expect.any(String) },
      nodeName: 'node-a',
      zone: 'zone-1',
    })),
  );
  expect(slice.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const endpoints = await eventually('the Endpoints of 3 addresses', async () => {
    const ep = await json<Endpoints>('get', 'endpoints', 'web');
    return ep.subsets?.[0]?.addresses?.length === 3 ? ep : undefined;
  });
  expect(endpoints.metadata.labels).toEqual({ tier: 'front' });
  expect(endpoints.metadata.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(endpoints.subsets).toEqual([
    {
      addresses: [0, 1, 2].map((i) => ({
        ip: `10.244.0.1${i}`,
        nodeName: 'node-a',
        targetRef: { kind: 'Pod', namespace: 'default', name: `web-${i}`, uid: expect.any(String) },
      })),
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    },
  ]);
  expect((await k('get', 'endpoints', 'web')).stdout).toMatch(
    /^NAME\s+ENDPOINTS\s+AGE\nweb\s+10\.244\.0\.10:8080,10\.244\.0\.11:8080,10\.244\.0\.12:8080\s+\S+\n$/,
  );

  await setStatus('web-1', '10.244.0.11', false);
  const flipped = await eventually('web-1 unready in the slice', async () => {
    const [s] = await slicesOf('web');
    const e = s?.endpoints?.find((x) => x.targetRef?.name === 'web-1');
    return e && !e.conditions.ready ? e : undefined;
  });
  expect(flipped.conditions).toEqual({ ready: false, serving: false, terminating: false });
  const after = await eventually('web-1 among the not ready addresses', async () => {
    const ep = await json<Endpoints>('get', 'endpoints', 'web');
    return ep.subsets?.[0]?.notReadyAddresses?.length === 1 ? ep : undefined;
  });
  expect(after.subsets![0].addresses!.map((a) => a.ip)).toEqual(['10.244.0.10', '10.244.0.12']);
  expect(after.subsets![0].notReadyAddresses!.map((a) => a.ip)).toEqual(['10.244.0.11']);

  // A headless service publishing unready addresses: every pod ready in both, and the headless label.
  await apply(`apiVersion: v1
kind: Service
metadata: {name: web-headless}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {app: web}
  ports: [{port: 9000, targetPort: 9090, protocol: UDP}]
`);
  const headless = await eventually('the headless service slice', async () => {
    const slices = await slicesOf('web-headless');
    return slices[0]?.endpoints?.length === 3 ? slices[0] : undefined;
  });
  expect(headless.metadata.labels['service.kubernetes.io/headless']).toBe('');
  expect(headless.ports).toEqual([{ name: '', port: 9090, protocol: 'UDP' }]);
  expect(headless.endpoints!.every((e) => e.conditions.ready)).toBe(true);
  expect(headless.endpoints!.find((e) => e.targetRef?.name === 'web-1')!.conditions).toEqual({ ready: true, serving: false, terminating: false });
  const headlessEp = await eventually('the headless Endpoints', async () => {
    const ep = await json<Endpoints>('get', 'endpoints', 'web-headless');
    return ep.subsets?.[0]?.addresses?.length === 3 ? ep : undefined;
  });
  expect(headlessEp.metadata.labels).toEqual({ 'service.kubernetes.io/headless': '' });

  // Deleting the service takes its Endpoints (the controller) and its slices (the garbage collector).
  expect((await k('delete', 'service', 'web-headless')).code).toBe(0);
  await eventually('the headless Endpoints and slices gone', async () => {
    const gone = (await k('get', 'endpoints', 'web-headless')).stderr.includes('NotFound') && (await slicesOf('web-headless')).length === 0;
    return gone ? true : undefined;
  });
});

test('the Endpoints of a selectorless Service are mirrored to an EndpointSlice', async () => {
  await apply(
    `apiVersion: v1
kind: Service
metadata: {name: external}
spec:
  ports: [{name: db, port: 5432}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: external, labels: {team: data}}
subsets:
- addresses: [{ip: 192.168.10.1}, {ip: 192.168.10.2}]
  notReadyAddresses: [{ip: 192.168.10.3}]
  ports: [{name: db, port: 5432}]
`,
    ENDPOINTS_DEPRECATED,
  );
  const endpoints = await json<{ metadata: { uid: string } }>('get', 'endpoints', 'external');
  const slice = await eventually('the mirrored slice', async () => {
    const slices = await slicesOf('external');
    return slices[0]?.endpoints?.length === 3 ? slices[0] : undefined;
  });
  expect(slice.metadata.generateName).toBe('external-');
  expect(slice.metadata.labels).toEqual({
    team: 'data',
    'kubernetes.io/service-name': 'external',
    'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io',
  });
  expect(slice.metadata.ownerReferences).toEqual([
    { apiVersion: 'v1', kind: 'Endpoints', name: 'external', uid: endpoints.metadata.uid, controller: true, blockOwnerDeletion: true },
  ]);
  expect(slice.ports).toEqual([{ name: 'db', port: 5432, protocol: 'TCP' }]);
  expect(slice.endpoints).toEqual([
    { addresses: ['192.168.10.1'], conditions: { ready: true } },
    { addresses: ['192.168.10.2'], conditions: { ready: true } },
    { addresses: ['192.168.10.3'], conditions: { ready: false } },
  ]);

  // The kubernetes service's own Endpoints are not mirrored (skip-mirror) and not touched.
  const own = await slicesOf('kubernetes');
  expect(own.map((s) => s.metadata.name)).toEqual(['kubernetes']);

  // skip-mirror takes the mirrored slice away.
  expect((await k('label', 'endpoints', 'external', 'endpointslice.kubernetes.io/skip-mirror=true')).stderr).toBe(ENDPOINTS_DEPRECATED);
  await eventually('the mirrored slice gone', async () => ((await slicesOf('external')).length === 0 ? true : undefined));
});
