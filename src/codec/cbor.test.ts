import { decodeCbor, encodeCbor, encodeCborWatchEvent } from './cbor';
import { lookupMessage } from '../schema/proto-loader';

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
