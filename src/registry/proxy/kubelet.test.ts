import type { KubeObject } from '../../api/types';
import { DEFAULT_KUBELET_ADDRESS_TYPES, kubeletTls, preferredNodeAddress } from './kubelet';

const node = (addresses: { type: string; address: string }[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n' },
  status: { addresses },
});

test('the first address of the first preferred type the node has', () => {
  const n = node([
    { type: 'ExternalIP', address: '1.2.3.4' },
    { type: 'InternalIP', address: '10.0.0.1' },
    { type: 'Hostname', address: 'n.example' },
  ]);
  expect(preferredNodeAddress(n, DEFAULT_KUBELET_ADDRESS_TYPES)).toBe('n.example');
  expect(preferredNodeAddress(n, ['InternalIP', 'Hostname'])).toBe('10.0.0.1');
});

test('no preferred address: kube NoMatchError text, the known addresses in Go %v form', () => {
  expect(() => preferredNodeAddress(node([{ type: 'ExternalIP', address: '1.2.3.4' }]), ['InternalIP'])).toThrow(
    'no preferred addresses found; known addresses: [{ExternalIP 1.2.3.4}]',
  );
  expect(() => preferredNodeAddress(node([]), DEFAULT_KUBELET_ADDRESS_TYPES)).toThrow('no preferred addresses found; known addresses: []');
});

test('without a CA the kubelet certificate is not verified; with one it is, unless skipped', () => {
  expect(kubeletTls({ preferredAddressTypes: [], allowLoopback: false })).toEqual({ rejectUnauthorized: false });
  const config = { ca: 'CA', cert: 'C', key: 'K', preferredAddressTypes: [], allowLoopback: false };
  expect(kubeletTls(config)).toEqual({ ca: 'CA', cert: 'C', key: 'K', rejectUnauthorized: true });
  expect(kubeletTls(config, true)).toEqual({ cert: 'C', key: 'K', rejectUnauthorized: false });
});
