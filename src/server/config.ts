import type { Clock } from '../api/clock';
import { CERTIFICATE_RELOAD_INTERVAL_MS } from './dynamic-certificates';
import { parseDuration } from './duration';
import {
  DEFAULT_EMULATED_VERSION,
  minCompatibilityOf,
  parseEmulatedVersionFlag,
  parseMinCompatibilityVersionFlag,
  supportedMinors,
  type EmulatedVersion,
} from './emulated-version';
import { ConfigError, featureGateSettings, parseFeatureGates, type FeatureGates } from './feature-gates';
import { KUBERNETES_VERSION } from './kubernetes-version';
import { parseAuthorizationModes, type AuthorizationMode } from '../auth/authorizer/modes';
import type { LoggingFormat } from './logger';
import { enabledAdmissionPlugins } from '../admission/plugin-names';
import { PROTOBUF_STORAGE, STORAGE_MEDIA_TYPES, type StorageMediaType } from '../storage/etcd/storage-codec';
import { parsePortRange, type PortRange } from '../registry/service-allocation/port-allocator';
import { parseServiceClusterIpRange } from '../registry/service-allocation/ip-range';
import { DEFAULT_KUBELET_ADDRESS_TYPES } from '../registry/proxy/kubelet';
import { BUILT_IN_RESOURCES } from '../resources';
import { parseNodeCapacity, type NodeCapacity } from '../nodes/capacity';
import { parseClusterCidr, type Ipv4Cidr } from '../nodes/pod-cidr';
import { enabledGroupVersions, parseRuntimeConfigFlag, registeredGroupVersions, type RuntimeConfig } from './runtime-config';

export interface Config {
  /** External etcd endpoints; empty starts an embedded etcd child process. */
  etcdServers: string[];
  dataDir: string;
  /** The address and port of the TLS listener (--bind-address, --secure-port; 0 picks a free port). */
  bindAddress: string;
  securePort: number;
  /**
   * The plain-HTTP listener, where every request is a cluster admin; null (the default) has none,
   * and so has `--insecure-port=0`, as in kube-apiserver before the flag went. 'ephemeral' (no flag
   * gives it: tests in this process) listens on a port the system picks.
   */
  insecureBindAddress: string;
  insecurePort: number | 'ephemeral' | null;
  /** The address the API server advertises (a SAN of the generated serving certificate; the JWKS URI's host). */
  advertiseAddress: string;
  /** Where generated certificates and keys live; '' is `<data-dir>/pki`. */
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** CA of client certificates; '' is the generated CA. */
  clientCaFile: string;
  /** kube's static token CSV: token,user,uid,"group1,group2"; '' for none. */
  tokenAuthFile: string;
  serviceAccountSigningKeyFile: string;
  serviceAccountKeyFiles: string[];
  /** The first issues tokens; all are accepted. */
  serviceAccountIssuers: string[];
  serviceAccountJwksUri: string;
  /** Audiences the API server accepts; [] is the first issuer. */
  apiAudiences: string[];
  anonymousAuth: boolean;
  /** Accept loopback addresses (127.0.0.0/8, ::1) in Endpoints and EndpointSlices, which kube-apiserver refuses (for tests). */
  allowLoopbackEndpoints: boolean;
  /** --service-cluster-ip-range: one CIDR, or two of different families (dual stack), primary first. */
  serviceClusterIpRange: string[];
  /** --service-node-port-range. */
  serviceNodePortRange: PortRange;
  /** How often the service IP and node port repair controllers run; not a flag, tests shorten it. */
  serviceRepairIntervalMs: number;
  /** How often the certificate and CA files are checked besides their watch (kube: a minute); not a flag, tests shorten it. */
  certificateReloadIntervalMs: number;
  /** The clock the leader's controllers keep time by (a CronJob's schedule, a Job's backoff); not a flag, in-process tests move it by hand. */
  controllerClock?: Clock;
  /** The front-proxy client certificate the aggregator presents to extension API servers; '' is the generated one. */
  proxyClientCertFile: string;
  proxyClientKeyFile: string;
  /** CA of front-proxy client certificates (requestheader authentication); '' is the generated front-proxy CA. */
  requestheaderClientCaFile: string;
  /** Common names a front-proxy certificate may have; [] allows any (kube's meaning), or front-proxy-client with the generated CA. */
  requestheaderAllowedNames: string[];
  /** Headers read for the user, groups and extra of a front-proxied request; [] is X-Remote-User, X-Remote-Group, X-Remote-Extra-. */
  requestheaderUsernameHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  /** TLS to kubelets: kapi's client certificate and key, the CA of kubelets' serving certificates ('' skips verification, as kube). */
  kubeletClientCertificate: string;
  kubeletClientKey: string;
  kubeletCertificateAuthority: string;
  /** The node address types tried in order to reach a kubelet. */
  kubeletPreferredAddressTypes: string[];
  /** TLS to etcd: the CA that signed its serving certificate and kapi's client certificate. */
  etcdCaFile: string;
  etcdCertFile: string;
  etcdKeyFile: string;
  etcdPrefix: string;
  /** --storage-media-type: how built-in kinds are encoded in etcd. */
  storageMediaType: StorageMediaType;
  featureGates: FeatureGates;
  /** --emulated-version: the Kubernetes minor whose resources, fields and feature gate defaults are served. */
  emulatedVersion: EmulatedVersion;
  /** --min-compatibility-version; null: one minor below the emulated version (minCompatibilityOf). */
  minCompatibilityVersion: EmulatedVersion | null;
  /** --runtime-config: group versions switched on or off (`group/version=true|false`, `api/all`, `api/beta`, ...). */
  runtimeConfig: RuntimeConfig;
  /** How long to wait for etcd at start-up before giving up. */
  storageInitializationTimeoutMs: number;
  /** Serve reads and watches from per-resource caches. */
  watchCache: boolean;
  /** How long the watch cache keeps events for watches that resume (--watch-cache-history). */
  watchCacheHistoryMs: number;
  /** How often etcd's history is compacted (--etcd-compaction-interval); 0 never. */
  etcdCompactionIntervalMs: number;
  /** How long Events live in etcd after their last write (--event-ttl). */
  eventTtlMs: number;
  /** Which leader-only controllers run, as kube-controller-manager's --controllers ('*', 'name', '-name'). */
  controllers: string[];
  /** How often watchers that allow bookmarks get one; not a flag, tests shorten it. */
  watchBookmarkIntervalMs: number;
  /** An EncryptionConfiguration file: which resources are encrypted at rest, and how; '' for none. */
  encryptionProviderConfig: string;
  /** Run the in-process kube-scheduler (default profile) among the leader's controllers; null: when there are simulated nodes. */
  scheduler: boolean | null;
  /** Run the leader-only controllers only while holding the kube-system/kapi-controller-manager Lease. */
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  /** How often the resource quota controller recounts every quota (kube-controller-manager's --resource-quota-sync-period). */
  resourceQuotaSyncPeriodMs: number;
  /** Terminated pods kept before the pod GC deletes the oldest (kube-controller-manager's --terminated-pod-gc-threshold; <= 0 keeps all). */
  terminatedPodGcThreshold: number;
  /** How often the pod GC runs (kube's fixed gcCheckPeriod, 20s). */
  podGcPeriodMs: number;
  /** How long the pod GC waits for a node its cache lacks before looking it up (kube's fixed quarantineTime, 40s). */
  podGcQuarantineMs: number;
  /** The deadline of every request that is not long-running (--request-timeout). */
  requestTimeoutMs: number;
  /** Watches without timeoutSeconds end after 1 to 2 times this (--min-request-timeout). */
  minRequestTimeoutSeconds: number;
  /** Read-only and mutating requests served at once before 429s; 0 for no limit. */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** After SIGTERM: how long /readyz is red before the listeners close (--shutdown-delay-duration). */
  shutdownDelayMs: number;
  /** After the listeners close: how long in-flight requests may take to finish (--shutdown-timeout). */
  shutdownTimeoutMs: number;
  /** Open client connections at most (--max-connections); 0 for no limit. */
  maxConnections: number;
  /** Concurrent streams an HTTP/2 client may open on one connection (--http2-max-streams-per-connection); 0 for kube's 100. */
  http2MaxStreamsPerConnection: number;
  /** The fraction of HTTP/2 requests whose connection is sent a GOAWAY (--goaway-chance), from 0 to 0.02. */
  goawayChance: number;
  /** --authorization-mode: authorizers asked in order (system:masters is always allowed). */
  authorizationModes: AuthorizationMode[];
  /** --audit-log-path: a file, or '-' for standard output; '' writes no audit log. */
  auditLogPath: string;
  /** --audit-policy-file: an audit.k8s.io/v1 Policy; without one nothing is audited. */
  auditPolicyFile: string;
  /** --audit-log-maxsize: megabytes before the log is rotated; 0 never. */
  auditLogMaxSize: number;
  /** --audit-log-maxbackup: rotated files kept; 0 keeps all. */
  auditLogMaxBackup: number;
  /** --enable-admission-plugins / --disable-admission-plugins: added to and taken from kube's default set. */
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  /** --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds: the DefaultTolerationSeconds plugin's tolerations. */
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  /** klog's -v: how verbose logs are (0..10); request lines appear from 3. */
  verbosity: number;
  loggingFormat: LoggingFormat;
  /** --simulated-nodes: how many simulated kubelets register nodes kapi-node-0, kapi-node-1, ... (0: none). */
  simulatedNodes: number;
  /** --simulated-node-capacity: each simulated node's capacity (and allocatable). */
  simulatedNodeCapacity: NodeCapacity;
  /** --simulated-run-duration: how long a simulated container of a restartPolicy Never/OnFailure pod runs before it exits. */
  simulatedRunDurationMs: number;
  /** --cluster-cidr: the pod network, cut into one /24 per simulated node (kube-controller-manager's node IPAM). */
  clusterCidr: Ipv4Cidr;
  /** --node-monitor-period / --node-monitor-grace-period: kube-controller-manager's node lifecycle timing. */
  nodeMonitorPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  /** kube-controller-manager's --horizontal-pod-autoscaler-* flags. */
  hpaSyncPeriodMs: number;
  hpaDownscaleStabilizationMs: number;
  hpaTolerance: number;
  hpaCpuInitializationPeriodMs: number;
  hpaInitialReadinessDelayMs: number;
}

interface FlagSpec {
  key: keyof Config;
  parse(value: string): unknown;
  help: string;
  /** Given more than once, the values add up (a list). */
  repeatable?: true;
  /** May be given without a value, meaning true. */
  boolean?: true;
}

const bool =
  (name: string) =>
  (v: string): boolean => {
    if (v !== 'true' && v !== 'false') throw new ConfigError(`invalid argument "${v}" for "--${name}" flag: must be true or false`);
    return v === 'true';
  };
const list = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const text = (v: string): string => v;

const integer =
  (name: string) =>
  (v: string): number => {
    if (!/^[0-9]+$/.test(v)) throw new ConfigError(`invalid argument "${v}" for "--${name}" flag: must be a non-negative integer`);
    return Number(v);
  };

/** A Go int64 flag (pflag's Int64Var): signed, with strconv's complaint. */
const int64 =
  (name: string) =>
  (v: string): number => {
    if (!/^[+-]?[0-9]+$/.test(v))
      throw new ConfigError(`invalid argument "${v}" for "--${name}" flag: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    return Number(v);
  };

const FLAGS: Record<string, FlagSpec> = {
  'etcd-servers': {
    key: 'etcdServers',
    parse: (v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    help: 'List of etcd servers to connect with (scheme://ip:port), comma separated. Without it kapi runs its own etcd.',
  },
  'data-dir': { key: 'dataDir', parse: (v) => v, help: 'Directory for the embedded etcd data.' },
  'bind-address': { key: 'bindAddress', parse: text, help: 'The IP address on which to serve HTTPS (default 0.0.0.0).' },
  'secure-port': {
    key: 'securePort',
    parse: integer('secure-port'),
    help: 'The port on which to serve HTTPS with authentication (default 6443; 0 picks a free one).',
  },
  'insecure-bind-address': { key: 'insecureBindAddress', parse: text, help: 'The IP address on which to serve plain HTTP (default 127.0.0.1).' },
  'insecure-port': {
    key: 'insecurePort',
    parse: (v) => integer('insecure-port')(v) || null,
    help: 'The port on which to serve plain HTTP, where every request acts as a cluster admin (off unless given; 0 is off).',
  },
  'advertise-address': { key: 'advertiseAddress', parse: text, help: 'The IP address on which to advertise the apiserver to members of the cluster.' },
  'cert-dir': { key: 'certDir', parse: text, help: 'The directory where generated TLS certificates and keys are kept (default <data-dir>/pki).' },
  'tls-cert-file': {
    key: 'tlsCertFile',
    parse: text,
    help: 'File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert).',
  },
  'tls-private-key-file': { key: 'tlsPrivateKeyFile', parse: text, help: 'File containing the default x509 private key matching --tls-cert-file.' },
  'client-ca-file': {
    key: 'clientCaFile',
    parse: text,
    help: 'Client certificates signed by one of these CAs authenticate as their CommonName, in their Organizations (default the generated CA).',
  },
  'token-auth-file': { key: 'tokenAuthFile', parse: text, help: 'A CSV file of static bearer tokens: token,user,uid,"group1,group2".' },
  'service-account-signing-key-file': {
    key: 'serviceAccountSigningKeyFile',
    parse: text,
    help: 'The private key (RSA or ECDSA, PEM) service account tokens are signed with (default <cert-dir>/sa.key, generated).',
  },
  'service-account-key-file': {
    key: 'serviceAccountKeyFiles',
    parse: (v) => [v],
    repeatable: true,
    help: 'PEM public keys, private keys or certificates that verify service account tokens (repeatable; default the signing key).',
  },
  'service-account-issuer': {
    key: 'serviceAccountIssuers',
    parse: (v) => [v],
    repeatable: true,
    help: 'Issuer of service account tokens; the first issues, all are accepted (repeatable; default https://kubernetes.default.svc.cluster.local).',
  },
  'service-account-jwks-uri': {
    key: 'serviceAccountJwksUri',
    parse: text,
    help: 'The jwks_uri of the discovery document (default https://<advertise-address>:<secure-port>/openid/v1/jwks).',
  },
  'api-audiences': { key: 'apiAudiences', parse: list, help: 'Audiences of the API; tokens for none of them are refused (default the first issuer).' },
  'anonymous-auth': {
    key: 'anonymousAuth',
    parse: bool('anonymous-auth'),
    boolean: true,
    help: 'Requests without credentials act as system:anonymous (default true).',
  },
  'allow-loopback-endpoints': {
    key: 'allowLoopbackEndpoints',
    parse: bool('allow-loopback-endpoints'),
    boolean: true,
    help: 'Accept loopback addresses (127.0.0.0/8, ::1) in Endpoints and EndpointSlices, for servers on 127.0.0.1 in tests (default false).',
  },
  'service-cluster-ip-range': {
    key: 'serviceClusterIpRange',
    parse: (v) => {
      const cidrs = parseServiceClusterIpRange(v);
      if (typeof cidrs === 'string') throw new ConfigError(`invalid argument "${v}" for "--service-cluster-ip-range" flag: ${cidrs}`);
      return cidrs;
    },
    help: 'A CIDR notation IP range from which to assign service cluster IPs; two of different families for dual stack (default 10.96.0.0/12).',
  },
  'service-node-port-range': {
    key: 'serviceNodePortRange',
    parse: (v) => {
      const range = parsePortRange(v);
      if (!range) throw new ConfigError(`invalid argument "${v}" for "--service-node-port-range" flag: must be a port range such as 30000-32767`);
      return range;
    },
    help: 'A port range to reserve for services with NodePort visibility, inclusive at both ends (default 30000-32767).',
  },
  'proxy-client-cert-file': {
    key: 'proxyClientCertFile',
    parse: text,
    help: 'Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request (default <cert-dir>/front-proxy-client.crt, generated).',
  },
  'proxy-client-key-file': {
    key: 'proxyClientKeyFile',
    parse: text,
    help: 'Private key for the client certificate used to prove the identity of the aggregator (default <cert-dir>/front-proxy-client.key).',
  },
  'requestheader-client-ca-file': {
    key: 'requestheaderClientCaFile',
    parse: text,
    help: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers (default <cert-dir>/front-proxy-ca.crt, generated).',
  },
  'requestheader-allowed-names': {
    key: 'requestheaderAllowedNames',
    parse: list,
    help: 'List of client certificate common names to allow to provide usernames in headers; empty allows any (default front-proxy-client with the generated CA).',
  },
  'requestheader-username-headers': {
    key: 'requestheaderUsernameHeaders',
    parse: list,
    help: 'List of request headers to inspect for usernames (default X-Remote-User).',
  },
  'requestheader-group-headers': {
    key: 'requestheaderGroupHeaders',
    parse: list,
    help: 'List of request headers to inspect for groups (default X-Remote-Group).',
  },
  'requestheader-extra-headers-prefix': {
    key: 'requestheaderExtraHeadersPrefix',
    parse: list,
    help: 'List of request header prefixes to inspect for extra user information (default X-Remote-Extra-).',
  },
  'kubelet-client-certificate': { key: 'kubeletClientCertificate', parse: text, help: 'Path to a client cert file for TLS to kubelets.' },
  'kubelet-client-key': { key: 'kubeletClientKey', parse: text, help: 'Path to a client key file for TLS to kubelets.' },
  'kubelet-certificate-authority': {
    key: 'kubeletCertificateAuthority',
    parse: text,
    help: "Path to a cert file for the certificate authority of kubelets' serving certificates (without it they are not verified).",
  },
  'kubelet-preferred-address-types': {
    key: 'kubeletPreferredAddressTypes',
    parse: (v) => {
      const types = list(v);
      const supported = DEFAULT_KUBELET_ADDRESS_TYPES;
      if (types.length === 0) throw new ConfigError('--kubelet-preferred-address-types must be specified');
      const unknown = types.find((t) => !supported.includes(t));
      if (unknown)
        throw new ConfigError(`--kubelet-preferred-address-types: unsupported address type ${JSON.stringify(unknown)} (one of ${supported.join(', ')})`);
      return types;
    },
    help: 'List of the preferred NodeAddressTypes to use for kubelet connections (default Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP).',
  },
  'etcd-cafile': { key: 'etcdCaFile', parse: text, help: 'SSL Certificate Authority file used to secure etcd communication.' },
  'etcd-certfile': { key: 'etcdCertFile', parse: text, help: 'SSL certification file used to secure etcd communication.' },
  'etcd-keyfile': { key: 'etcdKeyFile', parse: text, help: 'SSL key file used to secure etcd communication.' },
  'etcd-prefix': {
    key: 'etcdPrefix',
    parse: (v) => (v.startsWith('/') ? v : `/${v}`).replace(/\/$/, ''),
    help: 'The prefix to prepend to all resource paths in etcd.',
  },
  'storage-media-type': {
    key: 'storageMediaType',
    // EtcdOptions.Validate's check and message.
    parse: (v) => {
      if (!(STORAGE_MEDIA_TYPES as readonly string[]).includes(v))
        throw new ConfigError(`--storage-media-type ${JSON.stringify(v)} invalid, allowed values: ${STORAGE_MEDIA_TYPES.join(', ')}`);
      return v as StorageMediaType;
    },
    help: 'The media type to use to store objects in storage. Some resources or storage backends may only support a specific media type and will ignore this setting. Supported media types: [application/json, application/yaml, application/vnd.kubernetes.protobuf] (default "application/vnd.kubernetes.protobuf")',
  },
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
  'event-ttl': {
    key: 'eventTtlMs',
    parse: (v) => parseDuration(v, 'event-ttl'),
    help: 'Amount of time to retain events. (default 1h0m0s)',
  },
  controllers: {
    key: 'controllers',
    parse: list,
    help: "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. Names: the leader-only controllers' (namespace-controller, garbage-collector-controller, disruption-controller, ...).",
  },
  'encryption-provider-config': {
    key: 'encryptionProviderConfig',
    parse: (v) => v,
    help: 'The file containing configuration for encryption providers to be used for storing secrets in etcd.',
  },
  scheduler: {
    key: 'scheduler',
    parse: bool('scheduler'),
    boolean: true,
    help: "Run kube-scheduler's default profile in process, binding pods that name default-scheduler (default: true when --simulated-nodes is above 0, else false).",
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
  'resource-quota-sync-period': {
    key: 'resourceQuotaSyncPeriodMs',
    parse: (v) => parseDuration(v, 'resource-quota-sync-period'),
    help: "How often every ResourceQuota's usage is recounted from the objects, besides the recounts changes cause (default 5m0s).",
  },
  'terminated-pod-gc-threshold': {
    key: 'terminatedPodGcThreshold',
    parse: int64('terminated-pod-gc-threshold'),
    help: 'Number of terminated pods that can exist before the terminated pod garbage collector starts deleting terminated pods. If <= 0, the terminated pod garbage collector is disabled (default 12500).',
  },
  'pod-gc-period': {
    key: 'podGcPeriodMs',
    parse: (v) => parseDuration(v, 'pod-gc-period'),
    help: "How often the pod garbage collector looks for pods to delete (kube's fixed 20s; a kapi flag, for tests) (default 20s).",
  },
  'pod-gc-quarantine': {
    key: 'podGcQuarantineMs',
    parse: (v) => parseDuration(v, 'pod-gc-quarantine'),
    help: "How long the pod garbage collector waits for a node it does not know before looking it up, and deleting its pods if it is gone (kube's fixed 40s; a kapi flag) (default 40s).",
  },
  'request-timeout': {
    key: 'requestTimeoutMs',
    parse: (v) => parseDuration(v, 'request-timeout'),
    help: 'The deadline of every request but watches and other long-running ones; a request past it gets 504 (default 1m0s).',
  },
  'min-request-timeout': {
    key: 'minRequestTimeoutSeconds',
    parse: integer('min-request-timeout'),
    help: 'Seconds a watch without timeoutSeconds lasts at least; it ends at a random time between this and twice this (default 1800).',
  },
  'max-requests-inflight': {
    key: 'maxRequestsInflight',
    parse: integer('max-requests-inflight'),
    help: 'Read-only requests served at once; more get 429. 0 means no limit (default 400).',
  },
  'max-mutating-requests-inflight': {
    key: 'maxMutatingRequestsInflight',
    parse: integer('max-mutating-requests-inflight'),
    help: 'Mutating requests served at once; more get 429. 0 means no limit (default 200).',
  },
  'shutdown-delay-duration': {
    key: 'shutdownDelayMs',
    parse: (v) => parseDuration(v, 'shutdown-delay-duration'),
    help: 'After SIGTERM, how long to keep serving with /readyz failing before the listeners close (default 0s).',
  },
  'shutdown-timeout': {
    key: 'shutdownTimeoutMs',
    parse: (v) => parseDuration(v, 'shutdown-timeout'),
    help: 'After the listeners close, how long in-flight requests may take to finish before their connections are closed (default 1m0s).',
  },
  'max-connections': {
    key: 'maxConnections',
    parse: integer('max-connections'),
    help: 'Open client connections at most; at the cap an idle connection is closed for a new one, or the new one is refused. 0 means no limit (default 8192).',
  },
  'http2-max-streams-per-connection': {
    key: 'http2MaxStreamsPerConnection',
    parse: integer('http2-max-streams-per-connection'),
    help: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default.",
  },
  'goaway-chance': {
    key: 'goawayChance',
    // options.ServerRunOptions.Validate's range check.
    parse: (v) => {
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n))
        throw new ConfigError(`invalid argument "${v}" for "--goaway-chance" flag: strconv.ParseFloat: parsing "${v}": invalid syntax`);
      if (n < 0 || n > 0.02) throw new ConfigError('--goaway-chance can not be less than 0 or greater than 0.02');
      return n;
    },
    help: "To prevent HTTP/2 clients from getting stuck on a single apiserver, randomly close a connection (GOAWAY). The client's other in-flight requests won't be affected, and the client will reconnect, likely landing on a different apiserver after going through the load balancer again. This argument sets the fraction of requests that will be sent a GOAWAY. Clusters with single apiservers, or which don't use a load balancer, should NOT enable this. Min is 0 (off), Max is .02 (1/50 requests); .001 (1/1000) is a recommended starting point.",
  },
  'authorization-mode': {
    key: 'authorizationModes',
    parse: (v) => {
      try {
        return parseAuthorizationModes(v);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
    },
    help: 'Ordered list of plug-ins to do authorization on secure port: AlwaysAllow, AlwaysDeny, RBAC (default RBAC).',
  },
  'audit-log-path': {
    key: 'auditLogPath',
    parse: (v) => v,
    help: "If set, all requests coming to the apiserver will be logged to this file. '-' means standard out.",
  },
  'audit-policy-file': { key: 'auditPolicyFile', parse: (v) => v, help: 'Path to the file that defines the audit policy configuration.' },
  'audit-log-maxsize': {
    key: 'auditLogMaxSize',
    parse: integer('audit-log-maxsize'),
    help: 'The maximum size in megabytes of the audit log file before it gets rotated.',
  },
  'audit-log-maxbackup': {
    key: 'auditLogMaxBackup',
    parse: integer('audit-log-maxbackup'),
    help: "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.",
  },
  'enable-admission-plugins': {
    key: 'enableAdmissionPlugins',
    parse: list,
    help: 'Admission plugins to enable besides the default ones (NamespaceLifecycle, ServiceAccount, MutatingAdmissionWebhook, ValidatingAdmissionWebhook, ...), comma separated.',
  },
  'disable-admission-plugins': { key: 'disableAdmissionPlugins', parse: list, help: 'Admission plugins to disable, even default ones, comma separated.' },
  'default-not-ready-toleration-seconds': {
    key: 'defaultNotReadyTolerationSeconds',
    parse: int64('default-not-ready-toleration-seconds'),
    help: 'Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration (default 300).',
  },
  'default-unreachable-toleration-seconds': {
    key: 'defaultUnreachableTolerationSeconds',
    parse: int64('default-unreachable-toleration-seconds'),
    help: 'Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration (default 300).',
  },
  'simulated-nodes': {
    key: 'simulatedNodes',
    parse: integer('simulated-nodes'),
    help: 'Number of simulated nodes (kapi-node-0, ...) whose simulated kubelets run the pods bound to them (default 0).',
  },
  'simulated-node-capacity': {
    key: 'simulatedNodeCapacity',
    parse: (v) => {
      const capacity = parseNodeCapacity(v);
      if (typeof capacity === 'string') throw new ConfigError(`invalid argument "${v}" for "--simulated-node-capacity" flag: ${capacity}`);
      return capacity;
    },
    help: 'Capacity and allocatable of each simulated node, as name=quantity pairs (default cpu=8,memory=32Gi,pods=110).',
  },
  'simulated-run-duration': {
    key: 'simulatedRunDurationMs',
    parse: (v) => parseDuration(v, 'simulated-run-duration'),
    help: 'How long the containers of simulated pods with restartPolicy Never or OnFailure run before they exit 0 (default 1s).',
  },
  'cluster-cidr': {
    key: 'clusterCidr',
    parse: (v) => {
      const cidr = parseClusterCidr(v);
      if (typeof cidr === 'string') throw new ConfigError(`invalid argument "${v}" for "--cluster-cidr" flag: ${cidr}`);
      return cidr;
    },
    help: "CIDR Range for Pods in cluster; each simulated node's podCIDR is a /24 of it (default 10.244.0.0/16).",
  },
  'node-monitor-period': {
    key: 'nodeMonitorPeriodMs',
    parse: (v) => parseDuration(v, 'node-monitor-period'),
    help: 'The period for syncing NodeStatus in cloud-node-lifecycle-controller (default 5s).',
  },
  'node-monitor-grace-period': {
    key: 'nodeMonitorGracePeriodMs',
    parse: (v) => parseDuration(v, 'node-monitor-grace-period'),
    help: 'Amount of time which we allow running Node to be unresponsive before marking it unhealthy (default 40s).',
  },
  'horizontal-pod-autoscaler-sync-period': {
    key: 'hpaSyncPeriodMs',
    parse: (v) => parseDuration(v, 'horizontal-pod-autoscaler-sync-period'),
    help: 'The period for syncing the number of pods in horizontal pod autoscaler. (default 15s)',
  },
  'horizontal-pod-autoscaler-downscale-stabilization': {
    key: 'hpaDownscaleStabilizationMs',
    parse: (v) => parseDuration(v, 'horizontal-pod-autoscaler-downscale-stabilization'),
    help: 'The period for which autoscaler will look backwards and not scale down below any recommendation it made during that period. (default 5m0s)',
  },
  'horizontal-pod-autoscaler-tolerance': {
    key: 'hpaTolerance',
    parse: (v) => {
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n))
        throw new ConfigError(`invalid argument "${v}" for "--horizontal-pod-autoscaler-tolerance" flag: strconv.ParseFloat: parsing "${v}": invalid syntax`);
      return n;
    },
    help: 'The minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod autoscaler to consider scaling. (default 0.1)',
  },
  'horizontal-pod-autoscaler-cpu-initialization-period': {
    key: 'hpaCpuInitializationPeriodMs',
    parse: (v) => parseDuration(v, 'horizontal-pod-autoscaler-cpu-initialization-period'),
    help: 'The period after pod start when CPU samples might be skipped. (default 5m0s)',
  },
  'horizontal-pod-autoscaler-initial-readiness-delay': {
    key: 'hpaInitialReadinessDelayMs',
    parse: (v) => parseDuration(v, 'horizontal-pod-autoscaler-initial-readiness-delay'),
    help: 'The period after pod start during which readiness changes will be treated as initial readiness. (default 30s)',
  },
  // Only names and values are checked here: the gates are set once the emulated version is known (parseFlags).
  'feature-gates': { key: 'featureGates', parse: featureGateSettings, help: 'A set of key=value pairs that describe feature gates.' },
  'emulated-version': {
    key: 'emulatedVersion',
    parse: parseEmulatedVersionFlag,
    help: `The version kapi emulates the APIs and features of, major.minor or kube=major.minor: one of ${supportedMinors().join(', ')} (default=${KUBERNETES_VERSION.major}.${KUBERNETES_VERSION.minor}).`,
  },
  'min-compatibility-version': {
    key: 'minCompatibilityVersion',
    parse: parseMinCompatibilityVersionFlag,
    help: `The min version of control plane components that the server should be compatible with. Must be less or equal to the emulated-version. Version format could only be major.minor, for example: '--min-compatibility-version=kube=1.34'. Options are: kube=${supportedMinors()[0]}..${KUBERNETES_VERSION.major}.${KUBERNETES_VERSION.minor} (default: one minor below the emulated version).`,
  },
  'runtime-config': {
    key: 'runtimeConfig',
    parse: (v) => {
      const runtimeConfig = parseRuntimeConfigFlag(v);
      enabledGroupVersions(runtimeConfig, registeredGroupVersions(BUILT_IN_RESOURCES));
      return runtimeConfig;
    },
    help: 'A set of key=value pairs that enable or disable built-in APIs: <group>/<version>=true|false, api/all, api/ga, api/beta, api/alpha.',
  },
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
    bindAddress: '0.0.0.0',
    securePort: 6443,
    insecureBindAddress: '127.0.0.1',
    insecurePort: null,
    advertiseAddress: '',
    certDir: '',
    tlsCertFile: '',
    tlsPrivateKeyFile: '',
    clientCaFile: '',
    tokenAuthFile: '',
    serviceAccountSigningKeyFile: '',
    serviceAccountKeyFiles: [],
    serviceAccountIssuers: [],
    serviceAccountJwksUri: '',
    apiAudiences: [],
    anonymousAuth: true,
    allowLoopbackEndpoints: false,
    serviceClusterIpRange: ['10.96.0.0/12'],
    serviceNodePortRange: { base: 30000, size: 2768 },
    serviceRepairIntervalMs: 3 * 60_000,
    certificateReloadIntervalMs: CERTIFICATE_RELOAD_INTERVAL_MS,
    proxyClientCertFile: '',
    proxyClientKeyFile: '',
    requestheaderClientCaFile: '',
    requestheaderAllowedNames: [],
    requestheaderUsernameHeaders: [],
    requestheaderGroupHeaders: [],
    requestheaderExtraHeadersPrefix: [],
    kubeletClientCertificate: '',
    kubeletClientKey: '',
    kubeletCertificateAuthority: '',
    kubeletPreferredAddressTypes: DEFAULT_KUBELET_ADDRESS_TYPES,
    etcdCaFile: '',
    etcdCertFile: '',
    etcdKeyFile: '',
    etcdPrefix: '/registry',
    storageMediaType: PROTOBUF_STORAGE,
    featureGates: parseFeatureGates(''),
    emulatedVersion: DEFAULT_EMULATED_VERSION,
    minCompatibilityVersion: null,
    runtimeConfig: {},
    storageInitializationTimeoutMs: 30_000,
    watchCache: true,
    watchCacheHistoryMs: 5 * 60_000,
    watchBookmarkIntervalMs: 60_000,
    etcdCompactionIntervalMs: 5 * 60_000,
    eventTtlMs: 60 * 60_000,
    controllers: ['*'],
    encryptionProviderConfig: '',
    scheduler: null,
    leaderElect: true,
    leaderElectLeaseDurationMs: 15_000,
    leaderElectRenewDeadlineMs: 10_000,
    leaderElectRetryPeriodMs: 2_000,
    resourceQuotaSyncPeriodMs: 300_000,
    terminatedPodGcThreshold: 12500,
    podGcPeriodMs: 20_000,
    podGcQuarantineMs: 40_000,
    requestTimeoutMs: 60_000,
    minRequestTimeoutSeconds: 1800,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    shutdownDelayMs: 0,
    shutdownTimeoutMs: 60_000,
    maxConnections: 8192,
    http2MaxStreamsPerConnection: 0,
    goawayChance: 0,
    authorizationModes: ['RBAC'],
    auditLogPath: '',
    auditPolicyFile: '',
    auditLogMaxSize: 0,
    auditLogMaxBackup: 0,
    enableAdmissionPlugins: [],
    disableAdmissionPlugins: [],
    defaultNotReadyTolerationSeconds: 300,
    defaultUnreachableTolerationSeconds: 300,
    verbosity: 0,
    loggingFormat: 'text',
    simulatedNodes: 0,
    simulatedNodeCapacity: parseNodeCapacity('cpu=8,memory=32Gi,pods=110') as NodeCapacity,
    simulatedRunDurationMs: 1000,
    clusterCidr: parseClusterCidr('10.244.0.0/16') as Ipv4Cidr,
    nodeMonitorPeriodMs: 5000,
    nodeMonitorGracePeriodMs: 40_000,
    hpaSyncPeriodMs: 15_000,
    hpaDownscaleStabilizationMs: 300_000,
    hpaTolerance: 0.1,
    hpaCpuInitializationPeriodMs: 300_000,
    hpaInitialReadinessDelayMs: 30_000,
  };
}

export function usage(): string {
  const lines = Object.entries(FLAGS).map(([name, spec]) => `  --${name.padEnd(34)} ${spec.help}`);
  return `Usage: kapi [flags]\n\nFlags:\n${lines.join('\n')}\n`;
}

/** Parses `--name=value` and `--name value` flags, as kube-apiserver spells them. */
export function parseFlags(argv: string[]): Config | 'help' {
  const config = defaultConfig();
  // Gate defaults depend on the emulated version, which may come after --feature-gates.
  let featureGatesFlag = '';
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
    else if (spec.boolean) value = 'true';
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new ConfigError(`flag needs an argument: --${name}`);
    const fields = config as unknown as Record<string, unknown>;
    const parsed = spec.parse(value);
    // pflag's map flags merge repeated uses, a later value winning per gate (featuregate's Set).
    if (spec.key === 'featureGates') featureGatesFlag = featureGatesFlag ? `${featureGatesFlag},${value}` : value;
    fields[spec.key] = spec.repeatable ? [...(fields[spec.key] as unknown[]), ...(parsed as unknown[])] : parsed;
  }
  const minCompatibility = minCompatibilityOf(config.emulatedVersion, config.minCompatibilityVersion);
  config.featureGates = parseFeatureGates(featureGatesFlag, config.emulatedVersion.minor, minCompatibility.minor);
  validateLeaderElection(config);
  try {
    enabledAdmissionPlugins(config.enableAdmissionPlugins, config.disableAdmissionPlugins);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
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
