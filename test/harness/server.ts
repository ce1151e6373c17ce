import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

/**
 * The listeners of a test server: on 127.0.0.1 only, ports picked by the system, the insecure
 * port on (tests act through it as the cluster admin unless they test authentication).
 */
export const TEST_LISTENERS: Partial<Config> = { bindAddress: '127.0.0.1', securePort: 0, insecureBindAddress: '127.0.0.1', insecurePort: 'ephemeral' };

/**
 * Without the controllers that would act on a test's hand-made Deployments, ReplicaSets and
 * their pods (as kube-controller-manager --controllers=*,-deployment-controller,...): for tests
 * of what the API alone does with such chains.
 */
export const WITHOUT_WORKLOAD_CONTROLLERS: Partial<Config> = {
  controllers: [
    '*',
    ...['deployment', 'replicaset', 'replicationcontroller', 'statefulset', 'daemonset', 'job', 'cronjob', 'horizontal-pod-autoscaler'].map(
      (name) => `-${name}-controller`,
    ),
  ],
};

/**
 * kapi in this process, over the shared test etcd under a fresh prefix; `url` is its insecure
 * port, `secureUrl` its TLS port. Its data (certificates, admin.kubeconfig) is in a fresh
 * directory removed on close unless the caller gave `dataDir`.
 */
export async function startTestServer(overrides: Partial<Config> = {}): Promise<RunningServer & { prefix: string; dataDir: string }> {
  const prefix = overrides.etcdPrefix ?? uniquePrefix('srv');
  const ownDir = overrides.dataDir === undefined;
  const dataDir = overrides.dataDir ?? mkdtempSync(path.join(tmpdir(), 'kapi-srv-'));
  const server = await startServer(
    // allowLoopbackEndpoints: webhooks and services of tests listen on 127.0.0.1, reached through Endpoints.
    { ...defaultConfig(), etcdServers: [testEtcdEndpoint()], etcdPrefix: prefix, dataDir, allowLoopbackEndpoints: true, ...TEST_LISTENERS, ...overrides },
    () => undefined,
  );
  return {
    ...server,
    prefix,
    dataDir,
    close: async () => {
      await server.close();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
