import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WatchCache } from '../../src/storage/cache/watch-cache';
import type { WatchItem } from '../../src/storage/interfaces';
import { startTestServer } from '../harness/server';
import { httpsRequest } from '../harness/tls';

/** How late the ClusterRoleBindings' watch cache hears of etcd's events here. */
const LAG_MS = 1000;

type Applying = { apply(item: WatchItem): void };

afterEach(() => jest.restoreAllMocks());

test('a server answers with the bootstrap policy in force, however late its watch cache hears of the policy it wrote', async () => {
  // The bootstrap ClusterRoleBindings (a fresh prefix: written by this start) reach the watch cache
  // a second after etcd has them, a lag a loaded machine gives at random; the RBAC authorizer must
  // not have started from the cache's state before they came.
  const apply = (WatchCache.prototype as unknown as Applying).apply;
  jest.spyOn(WatchCache.prototype as unknown as Applying, 'apply').mockImplementation(function (this: WatchCache, item: WatchItem) {
    if (this.root.endsWith('/clusterrolebindings/')) setTimeout(() => apply.call(this, item), LAG_MS);
    else apply.call(this, item);
  });
  const server = await startTestServer();
  try {
    const ca = readFileSync(path.join(server.dataDir, 'pki', 'ca.crt'), 'utf8');
    // system:public-info-viewer, bound to system:unauthenticated.
    expect((await httpsRequest(`${server.secureUrl}/version`, { ca })).status).toBe(200);
    expect((await httpsRequest(`${server.secureUrl}/readyz`, { ca })).status).toBe(200);
  } finally {
    await server.close();
  }
});
