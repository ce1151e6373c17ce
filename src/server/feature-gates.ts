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

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses `Name=true,Other=false` over the defaults; unknown names and values are errors. */
export function parseFeatureGates(spec: string): FeatureGates {
  const gates: FeatureGates = { ...KNOWN_FEATURE_GATES };
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
