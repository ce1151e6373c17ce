import { GROUP_VERSION_PACKAGES } from '../generated/api-facts';
import { EMULATED_MINOR_DELTAS, PINNED_MINOR, type MinorDelta } from '../generated/emulation-facts';
import { ConfigError } from './feature-gates';
import { KUBERNETES_VERSION } from './kubernetes-version';

/**
 * --emulated-version (KEP-4330 compatibility versions): the Kubernetes minor kapi behaves as.
 * kube-apiserver's binary version stays what /version's major and minor report; the emulation
 * version selects the resources, fields and feature gate defaults of that older release.
 */
export interface EmulatedVersion {
  major: number;
  minor: number;
}

const BINARY: EmulatedVersion = { major: Number(KUBERNETES_VERSION.major), minor: Number(KUBERNETES_VERSION.minor) };

export const DEFAULT_EMULATED_VERSION: EmulatedVersion = BINARY;

/** kube's floor (kubeEffectiveVersionFloors): the binary version minus 3 minors. */
const FLOOR: EmulatedVersion = { major: BINARY.major, minor: BINARY.minor - 3 };

const text = (v: EmulatedVersion): string => `${v.major}.${v.minor}`;

/** The minors kapi ships facts for: the pinned one and those with a generated delta, every one kube's range admits. */
export function supportedMinors(): string[] {
  return [...Object.keys(EMULATED_MINOR_DELTAS), PINNED_MINOR];
}

/**
 * A version flag as component-base's registry parses it (toVersionMap): a comma separated list
 * of `component=major.minor` or a bare `major.minor` for "kube"; only the "kube" component is
 * registered in kube-apiserver. Null when the flag names no version for kube.
 */
function parseKubeVersion(value: string): { version: EmulatedVersion; text: string } | null {
  const versions = new Map<string, { version: EmulatedVersion; text: string }>();
  for (const item of value.split(',')) {
    if (item === '') continue;
    const at = item.indexOf('=');
    const component = at < 0 ? 'kube' : item.slice(0, at).trim();
    const raw = at < 0 ? item : item.slice(at + 1).trim();
    const m = /^v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?$/.exec(raw);
    if (!m) throw new ConfigError(`could not parse "${raw}" as version`);
    const version = { major: Number(m[1]), minor: Number(m[2]) };
    const shown = m[3] === undefined ? text(version) : `${text(version)}.${Number(m[3])}`;
    if (m[3] !== undefined && Number(m[3]) !== 0) throw new ConfigError(`patch version not allowed, got: ${component}=${shown}`);
    const existing = versions.get(component);
    if (existing) throw new ConfigError(`duplicate version flag, ${component}=${existing.text} and ${component}=${shown}`);
    versions.set(component, { version, text: shown });
  }
  for (const component of versions.keys()) if (component !== 'kube') throw new ConfigError(`component not registered: ${component}`);
  return versions.get('kube') ?? null;
}

const below = (a: EmulatedVersion, b: EmulatedVersion) => a.major < b.major || (a.major === b.major && a.minor < b.minor);

/** --emulated-version, checked as effectiveVersion.Validate checks it: between the floor and the binary. */
export function parseEmulatedVersionFlag(value: string): EmulatedVersion {
  const kube = parseKubeVersion(value);
  if (!kube) return DEFAULT_EMULATED_VERSION;
  const { version } = kube;
  if (below(BINARY, version) || below(version, FLOOR))
    throw new ConfigError(`emulation version ${kube.text} is not between [${text(FLOOR)}, ${text(BINARY)}.0]`);
  return version;
}

/** --min-compatibility-version (kube 1.35+): parsed here, checked against the emulated version by minCompatibilityOf. */
export function parseMinCompatibilityVersionFlag(value: string): EmulatedVersion | null {
  return parseKubeVersion(value)?.version ?? null;
}

/**
 * The min compatibility version, as effectiveVersion's SetEmulationVersion and
 * SetMinCompatibilityVersion leave it: one minor below the emulation version (not below the
 * floor) unless the flag sets it, and then between the floor and the emulation version (Validate).
 */
export function minCompatibilityOf(emulated: EmulatedVersion, explicit: EmulatedVersion | null): EmulatedVersion {
  if (!explicit) return { major: emulated.major, minor: Math.max(emulated.minor - 1, FLOOR.minor) };
  if (below(emulated, explicit) || below(explicit, FLOOR))
    throw new ConfigError(`minCompatibilityVersion version ${text(explicit)} is not between [${text(FLOOR)}, ${text(emulated)}]`);
  return explicit;
}

/** version.Info's emulation and min compatibility fields (effectiveVersion.Info). */
export function emulationVersionInfo(
  version: EmulatedVersion,
  minCompatibility: EmulatedVersion,
): {
  emulationMajor: string;
  emulationMinor: string;
  minCompatibilityMajor: string;
  minCompatibilityMinor: string;
} {
  return {
    emulationMajor: String(version.major),
    emulationMinor: String(version.minor),
    minCompatibilityMajor: String(minCompatibility.major),
    minCompatibilityMinor: String(minCompatibility.minor),
  };
}

const NO_DELTA: MinorDelta = { absentMessages: [], absentFields: {} };

/** What the emulated release lacks against the pinned one (nothing when it is the pinned release). */
export function deltaOf(version: EmulatedVersion): MinorDelta {
  return EMULATED_MINOR_DELTAS[text(version)] ?? NO_DELTA;
}

/** Whether the emulated release has the kind in that group version (its proto message exists there). */
export function kindExistsAt(delta: MinorDelta, group: string, version: string, kind: string): boolean {
  const pkg = GROUP_VERSION_PACKAGES[group ? `${group}/${version}` : version];
  return !pkg || !delta.absentMessages.includes(`${pkg}.${kind}`);
}
