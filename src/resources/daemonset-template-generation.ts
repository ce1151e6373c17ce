import { jsonEqual } from '../api/deep-equal';
import { badRequest } from '../api/errors';
import type { DaemonSet } from '../generated/types/apps/v1';

/** appsv1.DeprecatedTemplateGeneration: where apps/v1 carries the internal spec.templateGeneration. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** strconv.ParseInt(value, 10, 64)'s accepted forms. */
const GO_INT = /^[+-]?\d+$/;

/**
 * Convert_v1_DaemonSet_To_apps_DaemonSet: the annotation read as the template generation (0 when
 * absent); a value that is no integer fails the decoding, kube's 400.
 */
function templateGeneration(ds: DaemonSet): number {
  const value = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (value === undefined) return 0;
  if (!GO_INT.test(value)) {
    throw badRequest(`DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  return Number(value);
}

/** Convert_apps_DaemonSet_To_v1_DaemonSet: the generation written back, whatever the client sent. */
function setTemplateGeneration(ds: DaemonSet, generation: number): void {
  ds.metadata.annotations = { ...ds.metadata.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(generation) };
}

/** daemonSetStrategy.PrepareForCreate: the template generation starts at 1 unless the client gave a higher one. */
export function prepareTemplateGenerationForCreate(ds: DaemonSet): void {
  setTemplateGeneration(ds, Math.max(1, templateGeneration(ds)));
}

/** daemonSetStrategy.PrepareForUpdate: the stored generation, raised by one when the template changed; the client's value is ignored. */
export function prepareTemplateGenerationForUpdate(next: DaemonSet, prev: DaemonSet): void {
  templateGeneration(next);
  const stored = templateGeneration(prev);
  setTemplateGeneration(next, jsonEqual(next.spec?.template ?? {}, prev.spec?.template ?? {}) ? stored : stored + 1);
}
