import { lookupMessage, lookupMessageOf } from './proto-loader';

describe('message lookup', () => {
  it('keeps answering after clients have named many kinds that have no message', () => {
    for (let i = 0; i < 10_000; i++) {
      expect(lookupMessageOf(`invented${i}.example.com/v1`, `Kind${i}`)).toBeNull();
      expect(lookupMessage({ group: 'invented.example.com', version: `v${i}`, kind: 'Thing' })).toBeNull();
    }
    expect(lookupMessageOf('v1', 'ConfigMap')?.name).toBe('ConfigMap');
    expect(lookupMessageOf('apps/v1', 'Deployment')?.name).toBe('Deployment');
    expect(lookupMessage({ group: 'batch', version: 'v1', kind: 'Job' })?.name).toBe('Job');
    expect(lookupMessageOf('invented9999.example.com/v1', 'Kind9999')).toBeNull();
  });
});
