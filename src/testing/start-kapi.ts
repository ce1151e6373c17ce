import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultConfig } from '../server/config';
import { parseFeatureGates } from '../server/feature-gates';
import type { Logger } from '../server/logger';
import type { RunningServer } from '../server/start-server';
import { loadCrds, type CustomResourceDefinitionDocument } from './crds';
import { insecureKubeconfig } from './kubeconfig';
import { acquireSharedEtcd } from './shared-etcd';

export interface StartKapiOptions {
  /** CustomResourceDefinition manifests to install: a directory of YAML/JSON files, or files. */
  crds?: string | string[];
  /** Feature gates, as `{ Name: true }` or as the flag spells them (`Name=true,Other=false`). */
  featureGates?: Record<string, boolean> | string;
  /**
   * Hand out the TLS port and an admin kubeconfig with a client certificate (CN=kubernetes-admin,
   * O=system:masters) instead of the plain-HTTP port; both listen on 127.0.0.1.
   */
  secure?: boolean;
  /** 'embedded' (default): one etcd per machine shared by every instance; or an etcd URL. */
  etcd?: 'embedded' | string;
  /** The server's log lines; silent by default. */
  log?: Logger;
}

export interface Kapi {
  /** http://127.0.0.1:PORT, or https://127.0.0.1:PORT with `secure`. */
  url: string;
  /** A kubeconfig file for this instance (removed by stop()). */
  kubeconfigPath: string;
  /** The same kubeconfig as text, for KubeConfig.loadFromString. */
  kubeconfig: string;
  etcdEndpoint: string;
  /** This instance's key prefix in etcd; its keys are deleted by stop(). */
  etcdPrefix: string;
  stop(): Promise<void>;
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function featureGateSpec(gates: StartKapiOptions['featureGates']): string {
  if (gates === undefined || typeof gates === 'string') return gates ?? '';
  return Object.entries(gates).map(([name, on]) => `${name}=${on}`).join(',');
}

async function request(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json', Accept: 'application/json' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function established(crd: Record<string, unknown>): boolean {
  const conditions = ((crd.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []);
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/** Creates the CRDs, then waits until each is Established, as envtest's InstallCRDs/WaitForCRDs do. */
async function installCrds(url: string, crds: CustomResourceDefinitionDocument[], timeoutMs = 30_000): Promise<void> {
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
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

async function deletePrefix(endpoint: string, prefix: string): Promise<void> {
  const { Etcd3 } = await import('etcd3');
  const client = new Etcd3({ hosts: [endpoint] });
  try {
    await client.delete().prefix(`${prefix}/`);
  } finally {
    client.close();
  }
}

/**
 * A kapi for a test suite (what envtest is for Go): an in-process server on 127.0.0.1 over its own
 * key prefix of a shared etcd, with the given CRDs Established. stop() closes it and removes its
 * keys and its kubeconfig.
 */
export async function startKapi(options: StartKapiOptions = {}): Promise<Kapi> {
  const featureGates = parseFeatureGates(featureGateSpec(options.featureGates));
  const crds = options.crds === undefined ? [] : loadCrds(options.crds);
  const external = options.etcd !== undefined && options.etcd !== 'embedded' ? options.etcd : null;
  if (external !== null && !/^https?:\/\/[^/]+$/.test(external)) throw new Error(`startKapi: etcd must be 'embedded' or an http(s)://host:port URL, not ${external}`);
  // The server's modules (most of a cold start) load while the shared etcd starts in its own process.
  const sharing = external === null ? acquireSharedEtcd() : null;
  let startServer: typeof import('../server/start-server').startServer;
  try {
    ({ startServer } = await import('../server/start-server'));
  } catch (err) {
    (await sharing?.catch(() => null))?.release();
    throw err;
  }
  const shared = await sharing;
  const etcdEndpoint = external ?? shared!.endpoint;
  const etcdPrefix = `/kapi-testing/${randomBytes(6).toString('hex')}`;
  let server: RunningServer | null = null;
  // Certificates, keys and the kubeconfig of this instance live here; stop() removes it.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kapi-testing-'));
  const cleanUp = async (): Promise<void> => {
    try {
      await server?.close();
      await deletePrefix(etcdEndpoint, etcdPrefix);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      shared?.release();
    }
  };
  try {
    server = await startServer(
      {
        ...defaultConfig(),
        etcdServers: [etcdEndpoint],
        etcdPrefix,
        dataDir,
        bindAddress: '127.0.0.1',
        securePort: 0,
        insecureBindAddress: '127.0.0.1',
        insecurePort: 0,
        featureGates,
        // Instances are short-lived and share one etcd: none of them compacts it (the keeper's etcd lives only as long as a test run).
        etcdCompactionIntervalMs: 0,
        storageInitializationTimeoutMs: 10_000,
      },
      options.log ?? (() => undefined),
    );
    await installCrds(server.url, crds);
    const secure = options.secure === true && server.adminKubeconfig !== null;
    const kubeconfigPath = secure ? server.adminKubeconfig! : path.join(dataDir, 'kubeconfig');
    const kubeconfig = secure ? readFileSync(kubeconfigPath, 'utf8') : insecureKubeconfig(server.url);
    if (!secure) writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
    let stopping: Promise<void> | null = null;
    const url = secure ? server.secureUrl : server.url;
    return { url, kubeconfigPath, kubeconfig, etcdEndpoint, etcdPrefix, stop: () => (stopping ??= cleanUp()) };
  } catch (err) {
    await cleanUp().catch(() => undefined);
    throw err;
  }
}
