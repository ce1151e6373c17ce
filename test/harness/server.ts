import { randomBytes } from 'node:crypto';
import { defaultConfig, type Config } from '../../src/server/config';
import { startServer, type RunningServer } from '../../src/server/start-server';

export function testEtcdEndpoint(): string {
  const endpoint = process.env.KAPI_TEST_ETCD;
  if (!endpoint) throw new Error('KAPI_TEST_ETCD is not set: run through jest (its global setup starts etcd)');
  return endpoint;
}

export function uniquePrefix(label: string): string {
  return `/kapi-test-${label}-${randomBytes(4).toString('hex')}`;
}

/** kapi in this process, on an ephemeral port, over the shared test etcd under a fresh prefix. */
export async function startTestServer(overrides: Partial<Config> = {}): Promise<RunningServer & { prefix: string }> {
  const prefix = overrides.etcdPrefix ?? uniquePrefix('srv');
  const server = await startServer(
    { ...defaultConfig(), etcdServers: [testEtcdEndpoint()], etcdPrefix: prefix, port: 0, ...overrides },
    () => undefined,
  );
  return { ...server, prefix };
}
