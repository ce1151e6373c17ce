import { objectOf, objectsIn, stringOf } from '../../api/json-read';
import type { Level } from './levels';

export type Obj = Record<string, unknown>;

/** Why a check forbids a pod (policy.CheckResult when not allowed). */
export interface Violation {
  reason: string;
  detail: string;
}

/** One revision of a check: a pod's metadata and spec to a violation, or null when allowed. */
export type CheckPod = (meta: Obj, spec: Obj) => Violation | null;

export interface VersionedCheck {
  /** The first v1 minor this revision applies to. */
  minimum: number;
  check: CheckPod;
  /** Baseline checks this restricted revision replaces. */
  overrides?: string[];
}

export interface Check {
  id: string;
  level: Exclude<Level, 'privileged'>;
  /** Strictly increasing minimums. */
  versions: VersionedCheck[];
}

/** visitContainers: init containers, containers, then ephemeral containers. */
export function containersOf(spec: Obj): Obj[] {
  return [...objectsIn(spec.initContainers), ...objectsIn(spec.containers), ...objectsIn(spec.ephemeralContainers)];
}

export const nameOf = (o: Obj): string => stringOf(o.name);
export const securityContextOf = (o: Obj): Obj | null => (o.securityContext && typeof o.securityContext === 'object' ? objectOf(o.securityContext) : null);
export const podSecurityContextOf = (spec: Obj): Obj | null => securityContextOf(spec);

/** joinQuote: "a", "b". */
export function joinQuote(items: string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export const pluralize = (singular: string, plural: string, count: number): string => (count === 1 ? singular : plural);

/** "container "a"" / "containers "a", "b"". */
export const containersPhrase = (names: string[]): string => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

/** sets.String's List(): unique and sorted by code unit, as Go sorts strings. */
export function sortedUnique(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

/** Windows pods are exempt from the Linux-only restricted checks from v1.25 on. */
export const isWindowsPod = (spec: Obj): boolean => objectOf(spec.os).name === 'windows';
