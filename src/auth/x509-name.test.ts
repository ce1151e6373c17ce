import { objectIdentifier, sequence, set, tlv, utf8String } from './der';
import { subjectNames } from './x509-name';

const attribute = (oid: string, value: Buffer): Buffer => set(sequence(objectIdentifier(oid), value));
const CN = '2.5.4.3';
const O = '2.5.4.10';
const bmp = (text: string): Buffer => tlv(0x1e, Buffer.from(text, 'utf16le').swap16());

test('every string type Go reads is read, the last CN wins and every O counts, as pkix.Name.FillFromRDNSequence', () => {
  const name = sequence(
    attribute(CN, utf8String('alice')),
    attribute(O, bmp('system:masters')),
    attribute(O, tlv(0x13, Buffer.from('printable'))),
    attribute(O, tlv(0x14, Buffer.from('t61'))),
    attribute(CN, tlv(0x16, Buffer.from('system:node:n1'))),
  );
  expect(subjectNames(name, 'skip')).toEqual({ commonName: 'system:node:n1', organizations: ['system:masters', 'printable', 't61'] });
});

test('a string type Go cannot read names nobody in a request and makes a certificate unusable', () => {
  const universal = tlv(0x1c, Buffer.from('\0\0\0s', 'latin1'));
  const name = sequence(attribute(O, universal), attribute(CN, utf8String('bob')));
  expect(subjectNames(name, 'skip')).toEqual({ commonName: 'bob', organizations: [] });
  expect(() => subjectNames(name, 'reject')).toThrow('unsupported string type: 28');
});

test('malformed strings are refused', () => {
  expect(() => subjectNames(sequence(attribute(O, tlv(0x0c, Buffer.from([0xff])))), 'skip')).toThrow('invalid UTF-8');
  expect(() => subjectNames(sequence(attribute(O, tlv(0x13, Buffer.from('a@b')))), 'skip')).toThrow('PrintableString');
  expect(() => subjectNames(sequence(attribute(O, tlv(0x1e, Buffer.from([0x00])))), 'skip')).toThrow('BMPString');
});
