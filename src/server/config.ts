import { parseDuration } from './duration';
import { ConfigError, parseFeatureGates, type FeatureGates } from './feature-gates';
import type { LoggingFormat } from './logger';

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
  /** klog's -v: how verbose logs are (0..10); request lines appear from 3. */
  verbosity: number;
  loggingFormat: LoggingFormat;
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
  'feature-gates': { key: 'featureGates', parse: parseFeatureGates, help: 'A set of key=value pairs that describe feature gates.' },
  v: {
    key: 'verbosity',
    parse: (v) => {
      const level = integer('v')(v);
      if (level > 10) throw new ConfigError(`invalid argument "${v}" for "-v, --v" flag: must be at most 10`);
      return level;
    },
    help: 'Number for the log level verbosity (0..10; -v=3 logs every request). Also -v.',
  },
  'logging-format': {
    key: 'loggingFormat',
    parse: (v) => {
      if (v !== 'text' && v !== 'json') throw new ConfigError(`invalid argument "${v}" for "--logging-format" flag: must be text or json`);
      return v;
    },
    help: 'Sets the log format. Permitted formats: "json", "text".',
  },
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
    verbosity: 0,
    loggingFormat: 'text',
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
    // -v is pflag's one shorthand kube-apiserver has (klog's --v).
    const short = arg === '-v' || arg.startsWith('-v=');
    if (!arg.startsWith('--') && !short) throw new ConfigError(`unexpected argument: ${arg}`);
    const eq = arg.indexOf('=');
    const name = arg.slice(short ? 1 : 2, eq < 0 ? undefined : eq);
    const spec = FLAGS[name];
    if (!spec) throw new ConfigError(`unknown flag: --${name}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new ConfigError(`flag needs an argument: --${name}`);
    (config as unknown as Record<string, unknown>)[spec.key] = spec.parse(value);
  }
  return config;
}
