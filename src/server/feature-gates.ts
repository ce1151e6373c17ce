/** A feature's maturity, spelled as component-base's featuregate.prerelease (GA is the empty string). */
export type FeatureStage = 'ALPHA' | 'BETA' | '' | 'DEPRECATED';

/** One entry of a gate's versioned spec: from Kubernetes 1.<minor> on, this default and stage. */
interface VersionedSpec {
  minor: number;
  default: boolean;
  stage: FeatureStage;
  /** The gate cannot be set to anything but its default (LockToDefault). */
  locked?: boolean;
}

const alpha = (minor: number): VersionedSpec => ({ minor, default: false, stage: 'ALPHA' });
const beta = (minor: number, on: boolean): VersionedSpec => ({ minor, default: on, stage: 'BETA' });
const ga = (minor: number, locked = false): VersionedSpec => ({ minor, default: true, stage: '', locked });

/**
 * The feature gates kapi knows, with kube's versioned specs (defaultVersionedKubernetesFeatureGates
 * in kubernetes pkg/features and k8s.io/apiserver pkg/features, as of 1.36): the server-wide ones
 * kapi implements and those guarding fields that writes drop while they are off (gated-fields.ts).
 * Entries before 1.33, the oldest minor kube 1.36 emulates, only give the state it starts from.
 *
 * Where the 1.36 entries come from (no 1.36 pkg/features/kube_features.go was at hand; the stored
 * one is 1.35's): the DRA gates, InPlacePodVerticalScaling and DynamicResourceAllocation from a
 * later kubernetes tree's versioned specs of the scheduler's gates (1.36 and 1.37 entries), checked
 * against the kubernetes/website feature-gate pages (DRAPrioritizedList GA and not locked, DRAAdminAccess
 * GA locked, DRADeviceTaints beta on at 1.36); ClusterTrustBundleProjection and PodCertificateRequest
 * from their website pages (beta off through 1.36, GA in 1.37); ContainerStopSignals from its page
 * and KEP-4960 (alpha since 1.33, never promoted there); ImageVolume GA at 1.36 from k8s.io/api
 * v0.36.3 (its +featureGate marker dropped, as on graduation) and the 1.36 release notes' image
 * volume GA, whether 1.36 locks it to its default could not be found (taken as not locked);
 * DRAListTypeAttributes and DRANodeAllocatableResources, alpha from 1.36, from k8s.io/api v0.36.3's
 * +featureGate markers on fields v0.35.0 lacks.
 */
const SPECS = {
  APIResponseCompression: [alpha(8), beta(16, true)],
  AllowUnsafeMalformedObjectDeletion: [alpha(32)],
  CBORServingAndStorage: [alpha(32)],
  ClusterTrustBundleProjection: [alpha(29), beta(33, false)],
  ContainerRestartRules: [alpha(34), beta(35, true)],
  ContainerStopSignals: [alpha(33)],
  CoordinatedLeaderElection: [alpha(31), beta(33, false)],
  CrossNamespaceVolumeDataSource: [alpha(26)],
  CSIServiceAccountTokenSecrets: [beta(35, true)],
  DeploymentReplicaSetTerminatingReplicas: [alpha(33), beta(35, true)],
  DRAAdminAccess: [alpha(32), beta(34, true), ga(36, true)],
  DRAConsumableCapacity: [alpha(34), beta(36, true)],
  DRADeviceBindingConditions: [alpha(34), beta(36, true)],
  DRADeviceTaints: [alpha(33), beta(36, true)],
  DRAExtendedResource: [alpha(34), beta(36, true)],
  DRAListTypeAttributes: [alpha(36)],
  DRANodeAllocatableResources: [alpha(36)],
  DRAPartitionableDevices: [alpha(33), beta(36, true)],
  DRAPrioritizedList: [alpha(33), beta(34, true), ga(36)],
  DRAResourceClaimDeviceStatus: [alpha(32), beta(33, true)],
  DynamicResourceAllocation: [alpha(26), beta(32, false), ga(34), ga(35, true)],
  EnvFiles: [alpha(34), beta(35, true)],
  GenericWorkload: [alpha(35)],
  HostnameOverride: [alpha(34), beta(35, true)],
  HPAConfigurableTolerance: [alpha(33), beta(35, true)],
  ImageVolume: [alpha(31), beta(33, false), beta(35, true), ga(36)],
  InPlacePodLevelResourcesVerticalScaling: [alpha(35), beta(36, true)],
  InPlacePodVerticalScaling: [alpha(27), beta(33, true), ga(35, true)],
  ListFromCacheSnapshot: [alpha(33), beta(34, true)],
  MaxUnavailableStatefulSet: [alpha(24), beta(35, true)],
  MutatingAdmissionPolicy: [alpha(32), beta(34, false), ga(36)],
  NodeDeclaredFeatures: [alpha(35), beta(36, true)],
  PodCertificateRequest: [alpha(34), beta(35, false)],
  PodLevelResources: [alpha(32), beta(34, true)],
  TaintTolerationComparisonOperators: [alpha(35)],
  VolumeAttributesClass: [alpha(29), beta(31, false), ga(34), ga(36, true)],
  WatchList: [alpha(27), beta(32, true), beta(33, false), beta(34, true)],
} satisfies Record<string, VersionedSpec[]>;

export type FeatureGateName = keyof typeof SPECS;
export type FeatureGates = Record<FeatureGateName, boolean>;

const GATE_NAMES = Object.keys(SPECS) as FeatureGateName[];

/** The pinned release's minor: what the gates default to without --emulated-version. */
const PINNED_MINOR = 36;

/** The spec in force at Kubernetes 1.<minor>; none for a gate introduced later. */
function specAt(name: FeatureGateName, minor: number): VersionedSpec | undefined {
  return (SPECS[name] as VersionedSpec[]).filter((s) => s.minor <= minor).at(-1);
}

/** The defaults at Kubernetes 1.<minor> (featuregate's versioned defaults); a gate the release lacks is off. */
export function featureGateDefaultsAt(minor: number): FeatureGates {
  return Object.fromEntries(GATE_NAMES.map((name) => [name, specAt(name, minor)?.default ?? false])) as FeatureGates;
}

/** kube-apiserver 1.36's defaults. */
export const KNOWN_FEATURE_GATES: FeatureGates = featureGateDefaultsAt(PINNED_MINOR);

/** Each gate the release has, with its stage there: what `kubernetes_feature_enabled` labels. */
export function featureStagesAt(minor: number): { name: FeatureGateName; stage: FeatureStage }[] {
  return GATE_NAMES.flatMap((name) => {
    const spec = specAt(name, minor);
    return spec ? [{ name, stage: spec.stage }] : [];
  });
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The `Name=bool` pairs of a --feature-gates value: unknown names and values that are not booleans are errors. */
export function featureGateSettings(spec: string): [FeatureGateName, boolean][] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const [name, value] = item.split('=');
      if (!(name in SPECS)) throw new ConfigError(`unrecognized feature gate: ${name}`);
      if (value !== 'true' && value !== 'false')
        throw new ConfigError(`invalid value of ${name}=${value ?? ''}, err: strconv.ParseBool: parsing ${JSON.stringify(value ?? '')}: invalid syntax`);
      return [name as FeatureGateName, value === 'true'];
    });
}

/**
 * The gates at an emulated Kubernetes 1.<minor> with --feature-gates over their defaults, as
 * featuregate's unsafeSetFromMap sets them: a gate locked to its default cannot move, and one the
 * release does not have yet (PreAlpha there) cannot be set. `minCompatibilityMinor` is only shown.
 */
export function parseFeatureGates(spec: string, minor = PINNED_MINOR, minCompatibilityMinor = minor - 1): FeatureGates {
  const gates = featureGateDefaultsAt(minor);
  for (const [name, on] of featureGateSettings(spec)) {
    const current = specAt(name, minor);
    if (current?.locked && on !== current.default)
      throw new ConfigError(`cannot set feature gate ${name} to ${String(on)}, feature is locked to ${String(current.default)}`);
    if (!current)
      throw new ConfigError(
        `cannot set feature gate ${name} to ${String(on)}, feature is PreAlpha at emulated version 1.${minor}, min compatibility version 1.${minCompatibilityMinor}`,
      );
    gates[name] = on;
  }
  return gates;
}
