/** Feature gates kapi knows, with kube-apiserver's defaults. */
export const KNOWN_FEATURE_GATES = {
  APIResponseCompression: true,
  AllowUnsafeMalformedObjectDeletion: false,
  CBORServingAndStorage: false,
  ListFromCacheSnapshot: true,
  MutatingAdmissionPolicy: true,
  WatchList: true,
} as const;

export type FeatureGateName = keyof typeof KNOWN_FEATURE_GATES;
export type FeatureGates = Record<FeatureGateName, boolean>;

/**
 * Gates whose default was different before some minor: the default they had below it (kube's
 * versioned feature specs; MutatingAdmissionPolicy was beta and off in 1.34 and 1.35, GA in 1.36).
 */
const EARLIER_DEFAULTS: { gate: FeatureGateName; untilMinor: number; value: boolean }[] = [{ gate: 'MutatingAdmissionPolicy', untilMinor: 36, value: false }];

/** The defaults at an emulated Kubernetes 1.<minor> (featuregate's versioned defaults). */
export function featureGateDefaultsAt(minor: number): FeatureGates {
  const gates: FeatureGates = { ...KNOWN_FEATURE_GATES };
  for (const { gate, untilMinor, value } of EARLIER_DEFAULTS) if (minor < untilMinor) gates[gate] = value;
  return gates;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses `Name=true,Other=false` over the defaults; unknown names and values are errors. */
export function parseFeatureGates(spec: string, defaults: FeatureGates = KNOWN_FEATURE_GATES): FeatureGates {
  const gates: FeatureGates = { ...defaults };
  for (const item of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, value] = item.split('=');
    if (!(name in KNOWN_FEATURE_GATES)) throw new ConfigError(`unrecognized feature gate: ${name}`);
    if (value !== 'true' && value !== 'false')
      throw new ConfigError(`invalid value of ${name}=${value ?? ''}, err: strconv.ParseBool: parsing ${JSON.stringify(value ?? '')}: invalid syntax`);
    gates[name as FeatureGateName] = value === 'true';
  }
  return gates;
}
