import type { EndpointSubset } from '../../generated/types/core/v1';
import { repackSubsets, truncateSubsets } from './repack-subsets';

const http = { name: 'http', port: 8080, protocol: 'TCP' as const };
const metrics = { name: 'metrics', port: 9090, protocol: 'TCP' as const };

test('addresses offering the same ports share a subset; ready wins over not ready; sorted by IP', () => {
  const subsets: EndpointSubset[] = [
    { addresses: [{ ip: '10.0.0.2' }], ports: [http] },
    { addresses: [{ ip: '10.0.0.2' }], ports: [metrics] },
    { notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [http] },
    { notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [metrics] },
    { addresses: [{ ip: '10.0.0.3' }], ports: [http] },
  ];
  expect(repackSubsets(subsets)).toEqual([
    { addresses: [{ ip: '10.0.0.2' }, { ip: '10.0.0.3' }], notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [http] },
    { addresses: [{ ip: '10.0.0.2' }], notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [metrics] },
  ]);
});

test('a headless service without ports keeps its addresses', () => {
  expect(repackSubsets([{ addresses: [{ ip: '10.0.0.1' }], ports: [] }])).toEqual([{ addresses: [{ ip: '10.0.0.1' }] }]);
});

test('truncation keeps ready addresses first, each subset its share', () => {
  const ips = (n: number, base: number) => Array.from({ length: n }, (_, i) => ({ ip: `10.0.${base}.${i}` }));
  const subsets: EndpointSubset[] = [{ addresses: ips(6, 0), notReadyAddresses: ips(4, 1) }, { addresses: ips(2, 2) }];
  expect(truncateSubsets(subsets, 12)).toBe(false);
  expect(truncateSubsets(subsets, 10)).toBe(true);
  expect(subsets[0].addresses).toHaveLength(6);
  expect(subsets[0].notReadyAddresses).toHaveLength(2);
  expect(subsets[1].addresses).toHaveLength(2);
  const many: EndpointSubset[] = [{ addresses: ips(8, 0), notReadyAddresses: ips(3, 1) }, { addresses: ips(4, 2) }];
  expect(truncateSubsets(many, 6)).toBe(true);
  expect(many.map((s) => [s.addresses?.length, s.notReadyAddresses])).toEqual([
    [4, undefined],
    [2, undefined],
  ]);
});
