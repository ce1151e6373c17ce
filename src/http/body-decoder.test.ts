import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeCbor, encodeCbor } from '../codec/cbor';
import { DecodeError } from '../codec/decode-error';
import { decodeYaml, encodeYaml } from '../codec/yaml';
import { BodyDecoder } from './body-decoder';
import { duplicateFieldErrors } from './field-validation';

// The compiled worker (npm run build): ts-jest runs these sources, which a worker thread cannot load.
const WORKER = path.join(__dirname, '../../dist/http/body-decode-worker.js');

const containers = Array.from({ length: 2000 }, (_, i) => ({ name: `c${i}`, image: 'x', args: ['-v', String(i)], ports: [{ containerPort: i }] }));
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: { containers } } } };

describe('BodyDecoder', () => {
  const decoder = new BodyDecoder(WORKER);
  afterAll(() => decoder.close());

  test("a large YAML body's value and duplicate keys are decodeYaml's and duplicateFieldErrors', to the bit", async () => {
    const body = Buffer.concat([encodeYaml(deployment), Buffer.from('status:\n  a: yes\n  b: 0o17\n  c: -0.0\n  "__proto__": {x: 1}\n  d: 1\n  d: 2\n')]);
    expect(body.length).toBeGreaterThan(64 * 1024);
    const { value, duplicates } = await decoder.decode({ body, encoding: 'yaml', duplicates: true });
    const expected = decodeYaml(body) as { status: Record<string, unknown> };
    expect(value).toEqual(expected);
    const status = (value as typeof expected).status;
    // Plain scalars as yaml.v2 resolves them.
    expect(status.a).toBe(true);
    expect(status.b).toBe(15);
    expect(Object.is(status.c, -0)).toBe(true);
    expect(Object.prototype.hasOwnProperty.call(status, '__proto__')).toBe(true);
    expect(status.x).toBeUndefined();
    expect(duplicates).toEqual(duplicateFieldErrors(body, 'yaml'));
    expect(duplicates).toHaveLength(1);
  });

  test('an infinity or NaN fails as json.Marshal fails on what yaml.v2 read, in the worker too', async () => {
    const body = Buffer.concat([encodeYaml(deployment), Buffer.from('status:\n  a: .inf\n')]);
    expect(() => decodeYaml(body)).toThrow('error converting YAML to JSON: json: unsupported value: +Inf');
    await expect(decoder.decode({ body, encoding: 'yaml', duplicates: false })).rejects.toThrow('json: unsupported value: +Inf');
  });

  test('a large CBOR body is decodeCbor’s value', async () => {
    const body = encodeCbor(deployment);
    expect(body.length).toBeGreaterThan(64 * 1024);
    expect(await decoder.decode({ body, encoding: 'cbor', duplicates: true })).toEqual({ value: decodeCbor(body), duplicates: [] });
  });

  test("a large body that does not parse is the DecodeError the main thread's decoding throws", async () => {
    const body = Buffer.concat([encodeYaml(deployment), Buffer.from('metadata: [\n')]);
    const thrown = await decoder.decode({ body, encoding: 'yaml', duplicates: false }).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(DecodeError);
    expect(() => decodeYaml(body)).toThrow((thrown as Error).message);
  });

  test('a small body is decoded in place, without the worker', async () => {
    const inPlace = new BodyDecoder(path.join(__dirname, 'no-such-worker.js'));
    expect(await inPlace.decode({ body: Buffer.from('a: 1\na: 2\n'), encoding: 'yaml', duplicates: true })).toEqual({
      value: { a: 2 },
      duplicates: ['line 2: key "a" already set in map'],
    });
  });

  test('a worker that dies fails its bodies with an error, and the next body starts another', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'body-decoder-'));
    const script = path.join(dir, 'dies.js');
    writeFileSync(script, 'process.exit(3);\n');
    const dying = new BodyDecoder(script);
    const body = encodeYaml(deployment);
    await expect(dying.decode({ body, encoding: 'yaml', duplicates: false })).rejects.toThrow("the body decoder's thread exited with code 3");
    await expect(dying.decode({ body, encoding: 'yaml', duplicates: false })).rejects.toThrow('exited with code 3');
  });
});
