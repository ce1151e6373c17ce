import { randomBytes } from 'node:crypto';

// Kept apart from harness/server.ts, which loads all of kapi: test files that drive server
// processes need only these, and loading kapi into each jest worker's module registry costs
// seconds of CPU per file.

/** The suite's etcd, started by jest's global setup. */
export function testEtcdEndpoint(): string {
  const endpoint = process.env.KAPI_TEST_ETCD;
  if (!endpoint) throw new Error('KAPI_TEST_ETCD is not set: run through jest (its global setup starts etcd)');
  return endpoint;
}

/** A key prefix of the shared etcd that no other server of the run uses. */
export function uniquePrefix(label: string): string {
  return `/kapi-test-${label}-${randomBytes(4).toString('hex')}`;
}
