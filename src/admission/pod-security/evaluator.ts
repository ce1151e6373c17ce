import { BASELINE_CHECKS } from './baseline-checks';
import { RESTRICTED_CHECKS } from './restricted-checks';
import type { Check, CheckPod, Obj, Violation } from './check-helpers';
import type { LevelVersion } from './levels';

/**
 * The newest policy version kapi knows: kube-apiserver 1.34's. "latest", and any newer version a
 * namespace names, evaluate as this one (checkRegistry caps at its maxVersion).
 */
export const LATEST_POLICY_MINOR = 34;

/** Every check's revision in force at a version, or nothing before its first. */
function revisionAt(check: Check, minor: number): { check: CheckPod; overrides: string[] } | null {
  const revision = [...check.versions].reverse().find((v) => v.minimum <= minor);
  return revision ? { check: revision.check, overrides: revision.overrides ?? [] } : null;
}

/** Baseline checks first, then restricted ones, each sorted by ID, so that messages keep one order (populate). */
const byId = (a: Check, b: Check): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const ORDERED_CHECKS = [...[...BASELINE_CHECKS].sort(byId), ...[...RESTRICTED_CHECKS].sort(byId)];

/** The check lists already worked out, by level and minor (two levels, 35 minors at most), as checkRegistry keeps them. */
const checkLists = new Map<string, CheckPod[]>();

/** The checks of a level at a version: restricted takes the baseline checks its own do not override. */
function checksFor(lv: LevelVersion): CheckPod[] {
  if (lv.level === 'privileged') return [];
  const minor = lv.version === null ? LATEST_POLICY_MINOR : Math.min(lv.version, LATEST_POLICY_MINOR);
  const key = `${lv.level}:${minor}`;
  let checks = checkLists.get(key);
  if (!checks) checkLists.set(key, (checks = activeChecks(lv.level, minor)));
  return checks;
}

function activeChecks(level: 'baseline' | 'restricted', minor: number): CheckPod[] {
  const active = ORDERED_CHECKS.flatMap((c) => {
    if (c.level === 'restricted' && level !== 'restricted') return [];
    const revision = revisionAt(c, minor);
    return revision ? [{ id: c.id, ...revision }] : [];
  });
  const overridden = new Set(active.flatMap((c) => c.overrides));
  return active.filter((c) => !overridden.has(c.id)).map((c) => c.check);
}

/** The violations of a pod's metadata and spec at a level and version, in the checks' order (EvaluatePod + AggregateCheckResults). */
export function evaluatePod(lv: LevelVersion, meta: Obj, spec: Obj): Violation[] {
  return checksFor(lv).flatMap((check) => check(meta, spec) ?? []);
}

/** ForbiddenDetail: "reason (detail), reason (detail)". */
export const forbiddenDetail = (violations: Violation[]): string => violations.map((v) => (v.detail ? `${v.reason} (${v.detail})` : v.reason)).join(', ');

/** ForbiddenReason: "reason, reason". */
export const forbiddenReason = (violations: Violation[]): string => violations.map((v) => v.reason).join(', ');
