import { decodeCbor, encodeCbor, encodeCborInSlices, encodeCborWatchEvent } from './cbor';
import { lookupMessage } from '../schema/proto-loader';
import { deploymentOf } from '../../test/harness/large-deployment';

const hex = (b: Buffer) => b.toString('hex');

describe('CBOR as kube-apiserver writes it', () => {
  test('self-described tag, byte-string keys and values, shortest integers, field order kept', () => {
    // d9d9f7 tag 55799; a3 map(3); 44 "kind" ...; 18 2a = 42; f5 true
    expect(hex(encodeCbor({ kind: 'Pod', n: 42, ok: true }))).toBe(
      ['d9d9f7', 'a3', '44', hex(Buffer.from('kind')), '43', hex(Buffer.from('Pod')), '41', '6e', '18', '2a', '42', hex(Buffer.from('ok')), 'f5'].join(''),
    );
  });

  test('negative integers, null, arrays, and floats in their shortest exact width', () => {
    expect(hex(encodeCbor([-1, -500, null, 1.5, 0.1, 100000.5]))).toBe(
      ['d9d9f7', '86', '20', '3901f3', 'f6', 'f93e00', 'fb3fb999999999999a', 'fa47c35040'].join(''),
    );
  });

  test('Secret data are byte strings in tag 22, decoded back to base64', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { pw: 'aHVudGVyMg==' } };
    const body = encodeCbor(secret, lookupMessage({ group: '', version: 'v1', kind: 'Secret' }));
    expect(body.includes(Buffer.from(['d6', '47', hex(Buffer.from('hunter2'))].join(''), 'hex'))).toBe(true);
    expect(decodeCbor(body)).toEqual(secret);
  });

  test('a watch event embeds the object as its own tagged item', () => {
    const object = encodeCbor({ a: 1 });
    expect(hex(encodeCborWatchEvent('ADDED', object))).toBe(
      ['d9d9f7', 'a2', '44', hex(Buffer.from('type')), '45', hex(Buffer.from('ADDED')), '46', hex(Buffer.from('object')), hex(object)].join(''),
    );
  });

  test('text strings from other encoders are read too', () => {
    expect(decodeCbor(Buffer.from('a1616101', 'hex'))).toEqual({ a: 1 });
  });
});

test('shared references (tags 28 and 29) are refused: no alias bombs, no cycles', () => {
  const shared = Buffer.from([0xd9, 0xd9, 0xf7, 0x82, 0xd8, 0x1c, 0x82, 0x01, 0x02, 0xd8, 0x1d, 0x00]);
  expect(() => decodeCbor(shared)).toThrow('cbor: shared references (tags 28 and 29) are not supported');
  const cycle = Buffer.from([0xd8, 0x1c, 0x81, 0xd8, 0x1d, 0x00]);
  expect(() => decodeCbor(cycle)).toThrow('shared references');
});

test('nesting past the JSON limit is refused', () => {
  const deep = (n: number) => Buffer.concat([Buffer.alloc(n, 0x81), Buffer.from([0x01])]);
  expect(() => decodeCbor(deep(500))).not.toThrow();
  expect(() => decodeCbor(deep(1200))).toThrow('cbor: exceeded max nested level 1000');
});

describe('encodeCborInSlices', () => {
  const container = (i: number) => ({
    name: `c${i}`,
    image: 'x',
    ports: [{ containerPort: i }],
    resources: { limits: { cpu: 0.5 } },
    args: i % 2 ? undefined : ['-v'],
  });
  const deployment = deploymentOf(Array.from({ length: 1000 }, (_, i) => container(i)));
  const deploymentType = lookupMessage({ group: 'apps', version: 'v1', kind: 'Deployment' });

  test("a large object's bytes are encodeCbor's, written in slices", async () => {
    let slices = 0;
    const sliced = await encodeCborInSlices(deployment, deploymentType, async () => void slices++);
    // a yield per 64 entries of the 1,000 containers and the 1,000 fields entries
    expect(slices).toBeGreaterThanOrEqual(Math.floor((2 * 1000) / 64));
    expect(hex(sliced)).toBe(hex(encodeCbor(deployment, deploymentType)));
  });

  test("a large Secret's byte strings, a list and a bare array keep their bytes", async () => {
    const secretType = lookupMessage({ group: '', version: 'v1', kind: 'Secret' });
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, 'aHVudGVyMg=='])),
    };
    expect(hex(await encodeCborInSlices(secret, secretType, async () => {}))).toBe(hex(encodeCbor(secret, secretType)));
    const listType = lookupMessage({ group: '', version: 'v1', kind: 'SecretList' });
    const list = { apiVersion: 'v1', kind: 'SecretList', metadata: {}, items: Array.from({ length: 300 }, () => secret) };
    expect(hex(await encodeCborInSlices(list, listType, async () => {}))).toBe(hex(encodeCbor(list, listType)));
    const bare = [Array.from({ length: 700 }, (_, i) => (i % 3 ? i * 1.5 : null)), new Date(0), undefined];
    expect(hex(await encodeCborInSlices(bare, null, async () => {}))).toBe(hex(encodeCbor(bare)));
  });

  test('the items of a large list that hold large lists themselves are written in slices too', async () => {
    const listType = lookupMessage({ group: 'apps', version: 'v1', kind: 'DeploymentList' });
    const item = { ...deployment, metadata: { name: 'd' }, spec: { template: { spec: { containers: Array.from({ length: 300 }, (_, i) => container(i)) } } } };
    const list = { apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: {}, items: Array.from({ length: 256 }, () => item) };
    let slices = 0;
    const sliced = await encodeCborInSlices(list, listType, async () => void slices++);
    expect(slices).toBeGreaterThanOrEqual(Math.floor((256 * 300) / 64));
    expect(sliced.equals(encodeCbor(list, listType))).toBe(true);
  });

  test('a small object is encoded in one go, without a slice', async () => {
    let slices = 0;
    const small = { ...deployment, metadata: { name: 'd' }, spec: { template: { spec: { containers: [container(0)] } } } };
    expect(hex(await encodeCborInSlices(small, deploymentType, async () => void slices++))).toBe(hex(encodeCbor(small, deploymentType)));
    expect(slices).toBe(0);
  });
});
