import { parsePortRange, PortBitmap } from './port-allocator';

describe('node port allocation bitmap', () => {
  const range = { base: 30000, size: 2768 };

  test('--service-node-port-range: low-high, base+size, one port', () => {
    expect(parsePortRange('30000-32767')).toEqual(range);
    expect(parsePortRange('30000+2767')).toEqual(range);
    expect(parsePortRange('8080')).toEqual({ base: 8080, size: 1 });
    expect(parsePortRange('32767-30000')).toBeNull();
    expect(parsePortRange('x')).toBeNull();
  });

  test('stored as kube does: the big-endian bytes of an integer whose bit i is port base+i', () => {
    const bitmap = PortBitmap.empty(range);
    bitmap.set(30000, true);
    bitmap.set(30009, true);
    const stored = bitmap.toObject(null);
    expect(stored).toMatchObject({ kind: 'RangeAllocation', apiVersion: 'v1', range: '30000-32767' });
    // bits 0 and 9: 0x0201
    expect(Buffer.from(stored.data as string, 'base64')).toEqual(Buffer.from([0x02, 0x01]));
    const read = PortBitmap.read(stored, range);
    expect(read.ports()).toEqual([30000, 30009]);
  });

  test('a changed range keeps the ports inside the new one', () => {
    const bitmap = PortBitmap.empty(range);
    bitmap.set(30000, true);
    bitmap.set(31000, true);
    const read = PortBitmap.read(bitmap.toObject(null), { base: 30500, size: 1000 });
    expect(read.ports()).toEqual([31000]);
  });

  test('next takes the upper band first, then the static band, and null when full', () => {
    const small = { base: 100, size: 64 };
    const bitmap = PortBitmap.empty(small);
    // The static band of 64 ports is 16 ports: 100..115.
    for (let i = 0; i < 48; i++) {
      const port = bitmap.next()!;
      expect(port).toBeGreaterThanOrEqual(116);
      bitmap.set(port, true);
    }
    for (let i = 0; i < 16; i++) {
      const port = bitmap.next()!;
      expect(port).toBeLessThan(116);
      bitmap.set(port, true);
    }
    expect(bitmap.next()).toBeNull();
  });
});
