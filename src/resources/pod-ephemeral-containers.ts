import { jsonEqual } from '../api/deep-equal';
import { field, goQuote, type FieldErrorList } from '../api/field-errors';
import { isPlainObject, type KubeObject } from '../api/types';
import type { SubresourceStrategy } from '../registry/types';
import { validatePodSpec } from './pod-spec';

/** pods/ephemeralcontainers (podEphemeralContainersStrategy): spec.ephemeralContainers alone, added to and never changed. */

type Obj = Record<string, unknown>;

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const ephemeralContainers = (pod: KubeObject): Obj[] =>
  isPlainObject(pod.spec) && Array.isArray(pod.spec.ephemeralContainers) ? pod.spec.ephemeralContainers.filter(isPlainObject) : [];

/**
 * ValidatePodEphemeralContainersUpdate beyond metadata: the whole spec, no static pod, and every
 * existing ephemeral container still there unchanged (looked up by name: a patch may reorder them).
 */
export function validateEphemeralContainersUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const errs = validatePodSpec(next.spec, 'spec');
  if (prev.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return [field.forbidden('', 'static pods do not support ephemeral containers')];
  const byName = new Map(ephemeralContainers(next).map((c) => [c.name, c]));
  for (const old of ephemeralContainers(prev)) {
    const now = byName.get(old.name);
    const name = goQuote(String(old.name ?? ''));
    if (!now) errs.push(field.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${name} may not be removed\n`));
    else if (!jsonEqual(old, now)) errs.push(field.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${name} may not be changed\n`));
  }
  return errs;
}

export const ephemeralContainersStrategy: SubresourceStrategy = { validate: validateEphemeralContainersUpdate };
