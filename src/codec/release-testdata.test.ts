import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { API_RELEASE } from '../generated/api-facts';
import { decodeProtobuf } from './protobuf';
import { encodeProtobuf } from './protobuf-write';

/**
 * Drift against the release's own data: k8s.io/api's testdata/HEAD holds every kind with every
 * field set, in JSON and in the Protobuf Go writes for it (kept by `npm run gen:api-facts` in
 * test/fixtures/release). kapi must read each Protobuf body as that JSON, and write that JSON as
 * the same bytes: field numbers, wire types, zero values and JSON forms all as the release's.
 */

interface Testdata {
  release: string;
  objects: Record<string, { json: Record<string, unknown>; protobuf: string }>;
}

const testdata = JSON.parse(gunzipSync(readFileSync(path.resolve(__dirname, '../../test/fixtures/release/api-testdata.json.gz'))).toString('utf8')) as Testdata;

/**
 * The release writes WatchEvent, which has no TypeMeta, with an empty one: only a decoder told the
 * type can read it, as a watch stream's frames are read (a body never carries one).
 */
const UNTYPED = 'core.v1.WatchEvent';

const entries = Object.entries(testdata.objects).filter(([name]) => name !== UNTYPED);

test("the data is the pinned release's, and covers every group", () => {
  expect(testdata.release).toBe(API_RELEASE);
  expect(testdata.objects[UNTYPED]).toBeDefined();
  expect(entries.length).toBeGreaterThan(180);
  expect(new Set(entries.map(([name]) => name.split('.').slice(0, -2).join('.'))).size).toBeGreaterThanOrEqual(25);
});

test.each(entries)("%s: the release's Protobuf reads as its JSON, and the JSON writes as the same bytes", (_name, { json, protobuf }) => {
  const decoded = JSON.parse(JSON.stringify(decodeProtobuf(Buffer.from(protobuf, 'base64')))) as Record<string, unknown>;
  // Deep equality without key order (Go writes fields in declaration order, the test data as it was generated).
  expect(isDeepStrictEqual(decoded, json) ? json : decoded).toEqual(json);
  expect(encodeProtobuf(json).toString('base64')).toBe(protobuf);
});
