import path from 'node:path';
import type { Logger } from '../server/logger';
import { HostConnection } from './host-connection';
import type { KapiAddresses } from './host-protocol';

export interface StartKapiOptions {
  /** CustomResourceDefinition manifests to install: a directory of YAML/JSON files, or files. */
  crds?: string | string[];
  /**
   * Simulated nodes (kapi-node-0, ...; `--simulated-nodes`) whose simulated kubelets run the pods
   * bound to them; startKapi resolves once they are Ready. 0 by default.
   */
  simulatedNodes?: number;
  /** Feature gates, as `{ Name: true }` or as the flag spells them (`Name=true,Other=false`). */
  featureGates?: Record<string, boolean> | string;
  /**
   * Hand out the TLS port and an admin kubeconfig with a client certificate (CN=kubernetes-admin,
   * O=system:masters) instead of the plain-HTTP port; both listen on 127.0.0.1.
   */
  secure?: boolean;
  /** 'embedded' (default): one etcd per machine shared by every instance; or an etcd URL. */
  etcd?: 'embedded' | string;
  /** The server's log lines, from its start (such a server is never a spare); silent by default. */
  log?: Logger;
  /**
   * Run the server in this process (loading its modules here) instead of in the machine's testing
   * host: for a debugger or coverage of kapi itself. The shared etcd is still the host's.
   */
  inProcess?: boolean;
}

export interface Kapi extends KapiAddresses {
  stop(): Promise<void>;
}

function featureGateSpec(gates: StartKapiOptions['featureGates']): string {
  if (gates === undefined || typeof gates === 'string') return gates ?? '';
  return Object.entries(gates)
    .map(([name, on]) => `${name}=${on}`)
    .join(',');
}

/** One connection per process (per module registry, under jest), opened again if the host went away. */
let connection: Promise<HostConnection> | null = null;

async function host(embeddedEtcd: boolean): Promise<HostConnection> {
  const current = await connection?.catch(() => null);
  if (current && !current.closed) return current;
  connection = HostConnection.open(embeddedEtcd);
  return connection;
}

/**
 * A kapi for a test suite (what envtest is for Go): a server on 127.0.0.1 over its own key prefix
 * of a shared etcd, with the given CRDs Established. The server runs in the machine's testing host
 * (one detached process that every test process shares, as envtest's servers run beside the
 * tests), unless `inProcess`. stop() closes it and removes its keys and its kubeconfig; so does the
 * end of the calling process.
 */
export async function startKapi(options: StartKapiOptions = {}): Promise<Kapi> {
  const external = options.etcd !== undefined && options.etcd !== 'embedded' ? options.etcd : null;
  if (external !== null && !/^https?:\/\/[^/]+$/.test(external))
    throw new Error(`startKapi: etcd must be 'embedded' or an http(s)://host:port URL, not ${external}`);
  const crds = options.crds === undefined ? [] : (typeof options.crds === 'string' ? [options.crds] : options.crds).map((p) => path.resolve(p));
  const featureGates = featureGateSpec(options.featureGates);
  const conn = await host(external === null);
  const simulatedNodes = options.simulatedNodes ?? 0;
  if (!Number.isInteger(simulatedNodes) || simulatedNodes < 0)
    throw new Error(`startKapi: simulatedNodes must be a non-negative integer, not ${simulatedNodes}`);
  if (options.inProcess) return startInProcess(conn, { crds, featureGates, simulatedNodes, external, secure: options.secure === true, log: options.log });
  const log = options.log;
  const tag = log ? conn.logTag((line) => log(line.message, line.error)) : null;
  const forget = (): void => {
    if (tag !== null) conn.dropLog(tag);
  };
  const addresses = await conn
    .request<KapiAddresses>({ op: 'start', crds, featureGates, simulatedNodes, secure: options.secure === true, etcd: external, log: tag })
    .catch((err: unknown) => {
      forget();
      throw err;
    });
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => (stopping ??= conn.request({ op: 'stop', etcdPrefix: addresses.etcdPrefix }).then(forget));
  return { ...addresses, stop };
}

interface InProcessOptions {
  crds: string[];
  featureGates: string;
  simulatedNodes: number;
  external: string | null;
  secure: boolean;
  log: Logger | undefined;
}

async function startInProcess(conn: HostConnection, options: InProcessOptions): Promise<Kapi> {
  const [{ Instance }, { loadCrds }, { parseFeatureGates }] = await Promise.all([import('./instance'), import('./crds'), import('../server/feature-gates')]);
  const gates = parseFeatureGates(options.featureGates);
  const crds = options.crds.length === 0 ? [] : loadCrds(options.crds);
  const etcdEndpoint = options.external ?? (await conn.request<string>({ op: 'etcd' }));
  const instance = await Instance.start(etcdEndpoint, gates, options.log ?? null, options.simulatedNodes);
  try {
    await instance.installCrds(crds);
    return { ...instance.addresses(options.secure), stop: () => instance.stop() };
  } catch (err) {
    await instance.stop().catch(() => undefined);
    throw err;
  }
}
