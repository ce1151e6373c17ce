import { field, type FieldErrorList } from '../../api/field-errors';

/** Pod Security levels and policy versions, and a namespace's policy from its labels (k8s.io/pod-security-admission/api). */

export type Level = 'privileged' | 'baseline' | 'restricted';

/** A policy version: a v1 minor, or null for "latest". */
export type PolicyVersion = number | null;

export interface LevelVersion {
  level: Level;
  version: PolicyVersion;
}

export interface NamespacePolicy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`;
const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`;
const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`;
const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;
/** Audit annotations carry the same prefix (api.AuditAnnotationPrefix). */
export const AUDIT_ANNOTATION_PREFIX = LABEL_PREFIX;

const LEVELS: Level[] = ['privileged', 'baseline', 'restricted'];
const VERSION_PATTERN = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** kube-apiserver's default policy without an AdmissionConfiguration: privileged:latest in every mode. */
export const DEFAULT_POLICY: NamespacePolicy = {
  enforce: { level: 'privileged', version: null },
  audit: { level: 'privileged', version: null },
  warn: { level: 'privileged', version: null },
};

/** LevelVersion.String(): "restricted:latest", "baseline:v1.30". */
export function levelVersionText(lv: LevelVersion): string {
  return `${lv.level}:${lv.version === null ? 'latest' : `v1.${lv.version}`}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version === b.version;
}

/** CompareLevels: -1 when a is less strict than b, 0 when equal, 1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

export function fullyPrivileged(p: NamespacePolicy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';
}

function parseLevel(value: string): Level | null {
  return (LEVELS as string[]).includes(value) ? (value as Level) : null;
}

function parseVersion(value: string): PolicyVersion | undefined {
  if (value === 'latest') return null;
  const match = VERSION_PATTERN.exec(value);
  return match ? Number(match[1]) : undefined;
}

const labelPath = (label: string): string => `metadata.labels[${label}]`;
const LEVEL_ERROR = `must be one of ${LEVELS.join(', ')}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';

/**
 * PolicyToEvaluate: the namespace's policy from its labels over the defaults, and what is wrong
 * with them. A bad enforce level enforces restricted; a bad audit or warn level falls open to
 * privileged; a bad version is latest. Warn follows a stricter enforce level that is set explicitly.
 */
export function policyFromLabels(
  labels: Record<string, string> | undefined,
  defaults: NamespacePolicy = DEFAULT_POLICY,
): { policy: NamespacePolicy; errors: FieldErrorList } {
  const p: NamespacePolicy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldErrorList = [];
  if (!labels) return { policy: p, errors };
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(labels, key);
  const level = (key: string, onError: Level): Level => {
    const parsed = parseLevel(labels[key]);
    if (parsed === null) errors.push(field.invalid(labelPath(key), labels[key], LEVEL_ERROR));
    return parsed ?? onError;
  };
  const version = (key: string): PolicyVersion => {
    const parsed = parseVersion(labels[key]);
    if (parsed === undefined) errors.push(field.invalid(labelPath(key), labels[key], VERSION_ERROR));
    return parsed ?? null;
  };
  let explicitEnforce = false;
  if (has(ENFORCE_LEVEL_LABEL)) {
    p.enforce.level = level(ENFORCE_LEVEL_LABEL, 'restricted');
    explicitEnforce = parseLevel(labels[ENFORCE_LEVEL_LABEL]) !== null;
  }
  if (has(ENFORCE_VERSION_LABEL)) p.enforce.version = version(ENFORCE_VERSION_LABEL);
  if (has(AUDIT_LEVEL_LABEL)) p.audit.level = level(AUDIT_LEVEL_LABEL, 'privileged');
  if (has(AUDIT_VERSION_LABEL)) p.audit.version = version(AUDIT_VERSION_LABEL);
  if (has(WARN_LEVEL_LABEL)) p.warn.level = level(WARN_LEVEL_LABEL, 'privileged');
  if (has(WARN_VERSION_LABEL)) p.warn.version = version(WARN_VERSION_LABEL);
  if (!has(WARN_LEVEL_LABEL) && explicitEnforce && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!has(WARN_VERSION_LABEL)) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}
