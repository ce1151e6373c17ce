import { parseFlags } from './config';
import { ConfigError } from './feature-gates';

describe('listener and authentication flags', () => {
  test("kube-apiserver's defaults: TLS on 0.0.0.0:6443, no insecure port, anonymous requests allowed", () => {
    expect(parseFlags([])).toMatchObject({
      bindAddress: '0.0.0.0',
      securePort: 6443,
      insecurePort: null,
      insecureBindAddress: '127.0.0.1',
      anonymousAuth: true,
      certDir: '',
    });
  });

  test('repeatable flags add up; a boolean flag alone means true; lists split on commas', () => {
    const config = parseFlags([
      '--service-account-key-file=a.pub',
      '--service-account-key-file',
      'b.pub',
      '--service-account-issuer=https://one',
      '--service-account-issuer=https://two',
      '--api-audiences=x, y',
      '--anonymous-auth=false',
      '--anonymous-auth',
      '--insecure-port=0',
    ]);
    expect(config).toMatchObject({
      serviceAccountKeyFiles: ['a.pub', 'b.pub'],
      serviceAccountIssuers: ['https://one', 'https://two'],
      apiAudiences: ['x', 'y'],
      anonymousAuth: true,
      insecurePort: null,
    });
    expect(() => parseFlags(['--anonymous-auth=maybe'])).toThrow('invalid argument "maybe" for "--anonymous-auth" flag: must be true or false');
  });

  test("HTTP/2 flags: --http2-max-streams-per-connection (0: kube's 100) and --goaway-chance, at most 0.02 as options.ServerRunOptions.Validate has it", () => {
    expect(parseFlags([])).toMatchObject({ http2MaxStreamsPerConnection: 0, goawayChance: 0 });
    expect(parseFlags(['--http2-max-streams-per-connection=1000', '--goaway-chance=0.001'])).toMatchObject({
      http2MaxStreamsPerConnection: 1000,
      goawayChance: 0.001,
    });
    expect(() => parseFlags(['--goaway-chance=0.05'])).toThrow('--goaway-chance can not be less than 0 or greater than 0.02');
    expect(() => parseFlags(['--goaway-chance=-0.01'])).toThrow('--goaway-chance can not be less than 0 or greater than 0.02');
    expect(() => parseFlags(['--goaway-chance=often'])).toThrow(
      'invalid argument "often" for "--goaway-chance" flag: strconv.ParseFloat: parsing "often": invalid syntax',
    );
  });

  test("--insecure-port=0 turns the plain-HTTP port off (kube-apiserver's old meaning), a port number turns it on", () => {
    expect(parseFlags(['--insecure-port=8080'])).toMatchObject({ insecurePort: 8080 });
    expect(parseFlags(['--insecure-port=8080', '--insecure-port=0'])).toMatchObject({ insecurePort: null });
  });
});

describe('admission plugin flags', () => {
  test('comma lists of kube plugin names; an unknown name, or one kapi does not implement, stops the start with a ConfigError', () => {
    expect(parseFlags(['--enable-admission-plugins=NodeRestriction,AlwaysPullImages', '--disable-admission-plugins=ServiceAccount'])).toMatchObject({
      enableAdmissionPlugins: ['NodeRestriction', 'AlwaysPullImages'],
      disableAdmissionPlugins: ['ServiceAccount'],
    });
    expect(() => parseFlags(['--disable-admission-plugins=ServiceAcount'])).toThrow(ConfigError);
    expect(() => parseFlags(['--disable-admission-plugins=ServiceAcount'])).toThrow('disable-admission-plugins plugin "ServiceAcount" is unknown');
    expect(() => parseFlags(['--enable-admission-plugins=PodNodeSelector'])).toThrow(
      'enable-admission-plugins plugin "PodNodeSelector" is not implemented by kapi',
    );
  });

  test("DefaultTolerationSeconds' flags: 300 seconds each unless given", () => {
    expect(parseFlags([])).toMatchObject({ defaultNotReadyTolerationSeconds: 300, defaultUnreachableTolerationSeconds: 300 });
    expect(parseFlags(['--default-not-ready-toleration-seconds=60', '--default-unreachable-toleration-seconds', '0'])).toMatchObject({
      defaultNotReadyTolerationSeconds: 60,
      defaultUnreachableTolerationSeconds: 0,
    });
    expect(parseFlags(['--default-unreachable-toleration-seconds=-1'])).toMatchObject({ defaultUnreachableTolerationSeconds: -1 });
    expect(() => parseFlags(['--default-not-ready-toleration-seconds=soon'])).toThrow(
      'invalid argument "soon" for "--default-not-ready-toleration-seconds" flag: strconv.ParseInt: parsing "soon": invalid syntax',
    );
  });
});

describe('service allocation flags', () => {
  test('--service-cluster-ip-range (one CIDR or a dual-stack pair) and --service-node-port-range', () => {
    expect(parseFlags([])).toMatchObject({ serviceClusterIpRange: ['10.96.0.0/12'], serviceNodePortRange: { base: 30000, size: 2768 } });
    expect(parseFlags(['--service-cluster-ip-range=10.0.0.0/16,fd00::/108', '--service-node-port-range=20000-20099'])).toMatchObject({
      serviceClusterIpRange: ['10.0.0.0/16', 'fd00::/108'],
      serviceNodePortRange: { base: 20000, size: 100 },
    });
    expect(() => parseFlags(['--service-cluster-ip-range=10.0.0.0/16,10.1.0.0/16'])).toThrow(ConfigError);
    expect(() => parseFlags(['--service-node-port-range=2-1'])).toThrow('invalid argument "2-1" for "--service-node-port-range" flag');
  });
});

describe('front-proxy flags', () => {
  test("kube's names: files as given, the requestheader lists split on commas; unset they are empty (kapi's generated defaults apply)", () => {
    expect(parseFlags([])).toMatchObject({
      proxyClientCertFile: '',
      requestheaderClientCaFile: '',
      requestheaderAllowedNames: [],
      requestheaderUsernameHeaders: [],
    });
    expect(
      parseFlags([
        '--proxy-client-cert-file=p.crt',
        '--proxy-client-key-file=p.key',
        '--requestheader-client-ca-file=fp.crt',
        '--requestheader-allowed-names=front-proxy-client,aggregator',
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-,X-Extra-',
      ]),
    ).toMatchObject({
      proxyClientCertFile: 'p.crt',
      proxyClientKeyFile: 'p.key',
      requestheaderClientCaFile: 'fp.crt',
      requestheaderAllowedNames: ['front-proxy-client', 'aggregator'],
      requestheaderUsernameHeaders: ['X-Remote-User'],
      requestheaderGroupHeaders: ['X-Remote-Group'],
      requestheaderExtraHeadersPrefix: ['X-Remote-Extra-', 'X-Extra-'],
    });
  });
});

describe('simulated node flags', () => {
  test('--simulated-nodes, --simulated-node-capacity, --simulated-run-duration, --cluster-cidr and the node monitor periods', () => {
    expect(parseFlags([])).toMatchObject({
      simulatedNodes: 0,
      simulatedNodeCapacity: { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      simulatedRunDurationMs: 1000,
      clusterCidr: { prefix: 16 },
      nodeMonitorPeriodMs: 5000,
      nodeMonitorGracePeriodMs: 40_000,
    });
    const config = parseFlags([
      '--simulated-nodes=100',
      '--simulated-node-capacity=cpu=2,memory=4Gi,pods=10,nvidia.com/gpu=1',
      '--simulated-run-duration=250ms',
      '--cluster-cidr=10.32.0.0/12',
      '--node-monitor-grace-period=15s',
    ]);
    expect(config).toMatchObject({
      simulatedNodes: 100,
      simulatedNodeCapacity: { cpu: '2', memory: '4Gi', pods: '10', 'nvidia.com/gpu': '1' },
      simulatedRunDurationMs: 250,
      clusterCidr: { base: (10 * 256 + 32) * 65536, prefix: 12 },
      nodeMonitorGracePeriodMs: 15_000,
    });
    expect(() => parseFlags(['--simulated-node-capacity=cpu=2,memory=lots,pods=1'])).toThrow(
      'invalid argument "cpu=2,memory=lots,pods=1" for "--simulated-node-capacity" flag: "lots" is not a non-negative quantity',
    );
    expect(() => parseFlags(['--simulated-node-capacity=cpu=2'])).toThrow('memory is missing');
    expect(() => parseFlags(['--cluster-cidr=10.244.0.0/25'])).toThrow("must be /24 or wider to hold a node's pod CIDR");
    expect(() => parseFlags(['--cluster-cidr=10.244.0/16'])).toThrow('invalid CIDR address: 10.244.0/16');
    expect(() => parseFlags(['--simulated-nodes=-1'])).toThrow(ConfigError);
  });
});

describe('--feature-gates', () => {
  const config = (argv: string[]) => parseFlags(argv) as Exclude<ReturnType<typeof parseFlags>, 'help'>;
  test("defaults follow the emulated release's versioned specs; the flag sets gates over them", () => {
    expect(config([]).featureGates).toMatchObject({ GenericWorkload: false, HostnameOverride: true, MutatingAdmissionPolicy: true });
    expect(config(['--feature-gates=GenericWorkload=true', '--emulated-version=1.35']).featureGates).toMatchObject({
      GenericWorkload: true,
      HostnameOverride: true,
      MutatingAdmissionPolicy: false,
    });
    expect(config(['--emulated-version=1.34']).featureGates).toMatchObject({ HostnameOverride: false, MaxUnavailableStatefulSet: false });
  });

  test('repeated flags merge, the later value winning per gate', () => {
    expect(
      config(['--feature-gates=GenericWorkload=true,HostnameOverride=false', '--feature-gates=HostnameOverride=true,EnvFiles=false']).featureGates,
    ).toMatchObject({ GenericWorkload: true, HostnameOverride: true, EnvFiles: false });
  });

  test("kube's errors: an unknown gate, a gate locked to its default, a gate the emulated release does not have yet", () => {
    expect(() => config(['--feature-gates=Bogus=true'])).toThrow(new ConfigError('unrecognized feature gate: Bogus'));
    expect(() => config(['--feature-gates=VolumeAttributesClass=false'])).toThrow(
      new ConfigError('cannot set feature gate VolumeAttributesClass to false, feature is locked to true'),
    );
    expect(config(['--feature-gates=VolumeAttributesClass=false', '--emulated-version=1.35']).featureGates.VolumeAttributesClass).toBe(false);
    expect(() => config(['--emulated-version=1.34', '--feature-gates=GenericWorkload=true'])).toThrow(
      new ConfigError('cannot set feature gate GenericWorkload to true, feature is PreAlpha at emulated version 1.34, min compatibility version 1.33'),
    );
  });
});
