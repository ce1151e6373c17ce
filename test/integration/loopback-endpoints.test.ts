import { causes } from '../harness/causes';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

// kube-apiserver refuses loopback addresses in Endpoints and EndpointSlices; kapi does too unless
// started with --allow-loopback-endpoints (the test harness's default). Core Endpoints get kube's
// essential validation: addresses, ports, protocols.

let strict: Awaited<ReturnType<typeof startTestServer>>;
let allowing: Awaited<ReturnType<typeof startTestServer>>;
const ENDPOINTS = '/api/v1/namespaces/default/endpoints';
const SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';

const endpoints = (name: string, ip: string) => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name },
  subsets: [{ addresses: [{ ip }], ports: [{ port: 443 }] }],
});
const slice = (name: string, addressType: string, address: string) => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name },
  addressType,
  endpoints: [{ addresses: [address] }],
  ports: [{ name: 'https', port: 443, protocol: 'TCP' }],
});

// Two servers in one process, the strict one started last: the flag is each server's own.
beforeAll(async () => {
  allowing = await startTestServer({ allowLoopbackEndpoints: true });
  strict = await startTestServer({ allowLoopbackEndpoints: false });
});

afterAll(async () => {
  await strict?.close();
  await allowing?.close();
});

test("without the flag, loopback addresses are refused in Endpoints and EndpointSlices with kube's message", async () => {
  const api = new Api(strict.url);
  const ep = await api.post(ENDPOINTS, endpoints('lo', '127.0.0.1'));
  expect(ep.status).toBe(422);
  expect(causes(ep.body)).toEqual([
    'FieldValueInvalid subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
  const v6 = await api.post(SLICES, slice('lo6', 'IPv6', '::1'));
  expect(causes(v6.body)).toEqual([
    'FieldValueInvalid endpoints[0].addresses[0]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
  ]);
  expect((await api.post(ENDPOINTS, endpoints('ok', '10.1.2.3'))).status).toBe(201);
});

test('Endpoints validation: addresses required, IPs valid and not special, ports and protocols valid', async () => {
  const api = new Api(strict.url);
  const bad = await api.post(ENDPOINTS, {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'bad' },
    subsets: [
      { ports: [{ port: 80 }] },
      {
        addresses: [{ ip: 'nope' }, { ip: '169.254.0.9' }],
        notReadyAddresses: [{ ip: '0.0.0.0' }],
        ports: [
          { name: 'a', port: 0 },
          { port: 80, protocol: 'ICMP' },
        ],
      },
    ],
  });
  expect(bad.status).toBe(422);
  expect(causes(bad.body)).toEqual([
    'FieldValueRequired subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`',
    'FieldValueInvalid subsets[1].addresses[0].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'FieldValueInvalid subsets[1].addresses[0].ip: Invalid value: "nope": must be a valid IP address',
    'FieldValueInvalid subsets[1].addresses[1].ip: Invalid value: "169.254.0.9": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    'FieldValueInvalid subsets[1].notReadyAddresses[0].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
    'FieldValueInvalid subsets[1].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'FieldValueRequired subsets[1].ports[1].name: Required value',
    'FieldValueNotSupported subsets[1].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
  ]);
});

test('with --allow-loopback-endpoints, loopback addresses are accepted in both', async () => {
  const api = new Api(allowing.url);
  expect((await api.post(ENDPOINTS, endpoints('lo', '127.0.0.1'))).status).toBe(201);
  expect((await api.post(SLICES, slice('lo4', 'IPv4', '127.0.0.1'))).status).toBe(201);
  expect((await api.post(SLICES, slice('lo6', 'IPv6', '::1'))).status).toBe(201);
  // Other special addresses stay refused.
  expect((await api.post(ENDPOINTS, endpoints('ll', '169.254.0.9'))).status).toBe(422);
});
