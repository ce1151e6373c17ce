import { parseDuration } from './duration';
import { ConfigError, parseFeatureGates, type FeatureGates } from './feature-gates';

export interface Config {
  /** External etcd endpoints; empty starts an embedded etcd child process. */
  etcdServers: string[];
  dataDir: string;
  bindAddress: string;
  port: number;
  etcdPrefix: string;
  featureGates: FeatureGates;
  /** How long to wait for etcd at start-up before giving up. */
  storageInitializationTimeoutMs: number;
  /** Serve reads and watches from per-resource caches. */
  watchCache: boolean;
  /** How long the watch cache keeps events for watches that resume (--watch-cache-history). */
  watchCacheHistoryMs: number;
  /** How often etcd's history is compacted (--etcd-compaction-interval); 0 never. */
  etcdCompactionIntervalMs: number;
  /** How often watchers that allow bookmarks get one; not a flag, tests shorten it. */
  watchBookmarkIntervalMs: number;
  /** An EncryptionConfiguration file: which resources are encrypted at rest, and how; '' for none. */
  encryptionProviderConfig: string;
  /** Run the leader-only controllers only while holding the kube-system/kapi-controller-manager Lease. */
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
}

interface FlagSpec {
  key: keyof Config;
  parse(value: string): unknown;
  help: string;
}

const integer = (name: string) => (v: string): number => {
  if (!/^[0-9]+$/.test(v)) throw new ConfigError(`invalid argument "${v}" for "--${name}" flag: must be a non-negative integer`);
  return Number(v);
};

const FLAGS: Record<string, FlagSpec> = {
  'etcd-servers': {
    key: 'etcdServers',
    parse: (v) => v.split(',').map((s) => s.trim()).filter(Boolean),
    help: 'List of etcd servers to connect with (scheme://ip:port), comma separated. Without it kapi runs its own etcd.',
  },
  'data-dir': { key: 'dataDir', parse: (v) => v, help: 'Directory for the embedded etcd data.' },
  'insecure-bind-address': { key: 'bindAddress', parse: (v) => v, help: 'The IP address on which to serve plain HTTP.' },
  'insecure-port': { key: 'port', parse: integer('insecure-port'), help: 'The port on which to serve plain HTTP; every request acts as a cluster admin.' },
  'etcd-prefix': { key: 'etcdPrefix', parse: (v) => (v.startsWith('/') ? v : `/${v}`).replace(/\/$/, ''), help: 'The prefix to prepend to all resource paths in etcd.' },
  'storage-initialization-timeout': {
    key: 'storageInitializationTimeoutMs',
    parse: (v) => parseDuration(v, 'storage-initialization-timeout'),
    help: 'How long to wait for etcd at start-up before exiting with an error (e.g. 30s).',
  },
  'watch-cache': {
    key: 'watchCache',
    parse: (v) => {
      if (v !== 'true' && v !== 'false') throw new ConfigError(`invalid argument "${v}" for "--watch-cache" flag: must be true or false`);
      return v === 'true';
    },
    help: 'Serve reads and watches from per-resource caches in front of etcd (default true).',
  },
  'watch-cache-history': {
    key: 'watchCacheHistoryMs',
    parse: (v) => parseDuration(v, 'watch-cache-history'),
    help: 'How long the watch cache keeps events for watches resuming from a resourceVersion (default 5m).',
  },
  'etcd-compaction-interval': {
    key: 'etcdCompactionIntervalMs',
    parse: (v) => parseDuration(v, 'etcd-compaction-interval'),
    help: 'How often to compact etcd history, coordinated among replicas (default 5m; 0 disables).',
  },
  'encryption-provider-config': {
    key: 'encryptionProviderConfig',
    parse: (v) => v,
    help: 'The file containing configuration for encryption providers to be used for storing secrets in etcd.',
  },
  'leader-elect': {
    key: 'leaderElect',
    parse: (v) => {
      if (v !== 'true' && v !== 'false') throw new ConfigError(`invalid argument "${v}" for "--leader-elect" flag: must be true or false`);
      return v === 'true';
    },
    help: 'Start a leader election client and gain leadership before running the namespace controller, the garbage collector and CRD status (default true).',
  },
  'leader-elect-lease-duration': {
    key: 'leaderElectLeaseDurationMs',
    parse: (v) => parseDuration(v, 'leader-elect-lease-duration'),
    help: 'How long non-leader candidates wait after observing a leadership renewal before trying to take over (default 15s).',
  },
  'leader-elect-renew-deadline': {
    key: 'leaderElectRenewDeadlineMs',
    parse: (v) => parseDuration(v, 'leader-elect-renew-deadline'),
    help: 'How long the leader keeps trying to renew before it stops leading; less than or equal to the lease duration (default 10s).',
  },
  'leader-elect-retry-period': {
    key: 'leaderElectRetryPeriodMs',
    parse: (v) => parseDuration(v, 'leader-elect-retry-period'),
    help: 'How long candidates wait between attempts to acquire and renew leadership (default 2s).',
  },
  'feature-gates': { key: 'featureGates', parse: parseFeatureGates, help: 'A set of key=value pairs that describe feature gates.' },
};

export function defaultConfig(): Config {
  return {
    etcdServers: [],
    dataDir: './data',
    bindAddress: '127.0.0.1',
    port: 8080,
    etcdPrefix: '/registry',
    featureGates: parseFeatureGates(''),
    storageInitializationTimeoutMs: 30_000,
    watchCache: true,
    watchCacheHistoryMs: 5 * 60_000,
    watchBookmarkIntervalMs: 60_000,
    etcdCompactionIntervalMs: 5 * 60_000,
    encryptionProviderConfig: '',
    leaderElect: true,
    leaderElectLeaseDurationMs: 15_000,
    leaderElectRenewDeadlineMs: 10_000,
    leaderElectRetryPeriodMs: 2_000,
  };
}

export function usage(): string {
  const lines = Object.entries(FLAGS).map(([name, spec]) => `  --${name.padEnd(24)} ${spec.help}`);
  return `Usage: kapi [flags]\n\nFlags:\n${lines.join('\n')}\n`;
}

/** Parses `--name=value` and `--name value` flags, as kube-apiserver spells them. */
export function parseFlags(argv: string[]): Config | 'help' {
  const config = defaultConfig();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') return 'help';
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument: ${arg}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = FLAGS[name];
    if (!spec) throw new ConfigError(`unknown flag: --${name}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new ConfigError(`flag needs an argument: --${name}`);
    (config as unknown as Record<string, unknown>)[spec.key] = spec.parse(value);
  }
  validateLeaderElection(config);
  return config;
}

/** componentbaseconfig's leader election validation, with its messages. */
function validateLeaderElection(config: Config): void {
  if (!config.leaderElect) return;
  const { leaderElectLeaseDurationMs: lease, leaderElectRenewDeadlineMs: renew, leaderElectRetryPeriodMs: retry } = config;
  if (lease <= 0) throw new ConfigError('leaderElection.leaseDuration: Invalid value: must be greater than zero');
  if (renew <= 0) throw new ConfigError('leaderElection.renewDeadline: Invalid value: must be greater than zero');
  if (retry <= 0) throw new ConfigError('leaderElection.retryPeriod: Invalid value: must be greater than zero');
  if (lease <= renew) throw new ConfigError('leaderElection.leaseDuration: Invalid value: LeaseDuration must be greater than RenewDeadline');
}
