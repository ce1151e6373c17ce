import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Etcd3 } from 'etcd3';
import { defaultConfig } from '../server/config';
import type { FeatureGates } from '../server/feature-gates';
import type { Logger } from '../server/logger';
import { startServer, type RunningServer } from '../server/start-server';
import type { CustomResourceDefinitionDocument } from './crds';
import type { KapiAddresses } from './host-protocol';
import { insecureKubeconfig } from './kubeconfig';
import type { Node } from '../generated/types/core/v1';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

async function request(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json', Accept: 'application/json' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function established(crd: Record<string, unknown>): boolean {
  const conditions = (crd.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/**
 * One kapi server on 127.0.0.1 over its own key prefix of an etcd, with a temporary data directory
 * for its certificates and kubeconfig; stop() closes it and removes its keys and its directory.
 */
export class Instance {
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly etcdEndpoint: string,
    readonly etcdPrefix: string,
    private readonly dataDir: string,
    private readonly server: RunningServer,
  ) {}

  static async start(etcdEndpoint: string, featureGates: FeatureGates, logger: Logger | null = null, simulatedNodes = 0): Promise<Instance> {
    const etcdPrefix = `/kapi-testing/${randomBytes(6).toString('hex')}`;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'kapi-testing-'));
    try {
      const server = await startServer(
        {
          ...defaultConfig(),
          etcdServers: [etcdEndpoint],
          etcdPrefix,
          dataDir,
          bindAddress: '127.0.0.1',
          securePort: 0,
          insecureBindAddress: '127.0.0.1',
          insecurePort: 'ephemeral',
          featureGates,
          simulatedNodes,
          // Instances are short-lived and share one etcd: none of them compacts it (the shared etcd lives only as long as a test run).
          etcdCompactionIntervalMs: 0,
          storageInitializationTimeoutMs: 10_000,
        },
        logger ?? (() => undefined),
      );
      const instance = new Instance(etcdEndpoint, etcdPrefix, dataDir, server);
      await instance.waitForNodes(simulatedNodes).catch(async (err: unknown) => {
        await instance.stop().catch(() => undefined);
        throw err;
      });
      return instance;
    } catch (err) {
      rmSync(dataDir, { recursive: true, force: true });
      await deletePrefix(etcdEndpoint, etcdPrefix).catch(() => undefined);
      throw err;
    }
  }

  /** Waits until the simulated nodes are Ready and schedulable (their kubelet's not-ready taint gone). */
  private async waitForNodes(count: number, timeoutMs = 30_000): Promise<void> {
    if (count === 0) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await request(`${this.server.url}/api/v1/nodes`);
      const nodes = (res.body.items ?? []) as Node[];
      const ready = nodes.filter(
        (n) =>
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
          !(n.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready'),
      );
      if (ready.length >= count) return;
      if (Date.now() > deadline) throw new Error(`startKapi: ${ready.length} of ${count} simulated nodes were Ready within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Creates the CRDs, then waits until each is Established, as envtest's InstallCRDs/WaitForCRDs do. */
  async installCrds(crds: CustomResourceDefinitionDocument[], timeoutMs = 30_000): Promise<void> {
    const url = this.server.url;
    for (const crd of crds) {
      const res = await request(`${url}${CRDS}`, { method: 'POST', body: JSON.stringify(crd) });
      if (res.status !== 201) throw new Error(`startKapi: creating CRD ${crd.metadata.name} failed (${res.status}): ${String(res.body.message ?? '')}`);
    }
    const deadline = Date.now() + timeoutMs;
    for (const crd of crds) {
      for (;;) {
        const res = await request(`${url}${CRDS}/${crd.metadata.name}`);
        if (res.status === 200 && established(res.body)) break;
        if (Date.now() > deadline) throw new Error(`startKapi: CRD ${crd.metadata.name} was not Established within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  }

  /** Where callers reach it: the TLS port and the admin kubeconfig with `secure`, else plain HTTP. */
  addresses(secure: boolean): KapiAddresses {
    const tls = secure && this.server.adminKubeconfig !== null;
    const kubeconfigPath = tls ? this.server.adminKubeconfig! : path.join(this.dataDir, 'kubeconfig');
    const kubeconfig = tls ? readFileSync(kubeconfigPath, 'utf8') : insecureKubeconfig(this.server.url);
    if (!tls) writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
    const url = tls ? this.server.secureUrl : this.server.url;
    return { url, kubeconfigPath, kubeconfig, etcdEndpoint: this.etcdEndpoint, etcdPrefix: this.etcdPrefix };
  }

  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      try {
        await this.server.close();
        await deletePrefix(this.etcdEndpoint, this.etcdPrefix);
      } finally {
        rmSync(this.dataDir, { recursive: true, force: true });
      }
    })());
  }
}

async function deletePrefix(endpoint: string, prefix: string): Promise<void> {
  const client = new Etcd3({ hosts: [endpoint] });
  try {
    await client.delete().prefix(`${prefix}/`);
  } finally {
    client.close();
  }
}
