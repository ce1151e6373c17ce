import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultConfig, type Config } from '../../src/server/config';
import { startServer, type RunningServer } from '../../src/server/start-server';
import { testEtcdEndpoint, uniquePrefix } from './shared-etcd';

/**
 * The listeners of a test server: on 127.0.0.1 only, ports picked by the system, the insecure
 * port on (tests act through it as the cluster admin unless they test authentication).
 */
export const TEST_LISTENERS: Partial<Config> = { bindAddress: '127.0.0.1', securePort: 0, insecureBindAddress: '127.0.0.1', insecurePort: 'ephemeral' };

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
