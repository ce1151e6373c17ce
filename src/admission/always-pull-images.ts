import { field, fieldErrorMessage } from '../api/field-errors';
import type { Container, Pod } from '../generated/types/core/v1';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { admissionForbidden } from './admission-forbidden';

/** pods.VisitContainersWithPath: every container of a pod spec with its field path. */
function containersOf(pod: Pod): { container: Container; path: string }[] {
  const spec = pod.spec ?? {};
  const at = (kind: 'initContainers' | 'containers' | 'ephemeralContainers') =>
    (spec[kind] ?? []).map((container, i) => ({ container: container as Container, path: `spec.${kind}[${i}]` }));
  return [...at('initContainers'), ...at('containers'), ...at('ephemeralContainers')];
}

/** shouldIgnore: only pods themselves, and an update only when it brings an image the pod did not have. */
function ignored(attrs: AdmissionAttributes): boolean {
  if (attrs.subresource !== '' || attrs.def.group !== '' || attrs.def.resource !== 'pods' || !attrs.object) return true;
  if (attrs.operation === 'DELETE') return true;
  if (attrs.operation !== 'UPDATE' || !attrs.oldObject) return false;
  const old = new Set(containersOf(attrs.oldObject as Pod).map((c) => c.container.image));
  return containersOf(attrs.object as Pod).every((c) => old.has(c.container.image));
}

/**
 * AlwaysPullImages (plugin/pkg/admission/alwayspullimages): every container of a created pod, or
 * of an updated one that brings a new image, pulls its image Always, so a pod cannot use an image
 * another pod's credentials pulled onto the node.
 */
export class AlwaysPullImages implements AdmissionPlugin {
  readonly name = 'AlwaysPullImages';

  admit(attrs: AdmissionAttributes): void {
    if (ignored(attrs)) return;
    for (const { container } of containersOf(attrs.object as Pod)) container.imagePullPolicy = 'Always';
  }

  /** A later mutation that changed a policy back is refused (kube aggregates every container's refusal; the first is kapi's answer). */
  validate(attrs: AdmissionAttributes): void {
    if (ignored(attrs)) return;
    const wrong = containersOf(attrs.object as Pod).find(({ container }) => container.imagePullPolicy !== 'Always');
    if (wrong) {
      throw admissionForbidden(
        attrs,
        fieldErrorMessage(field.notSupported(`${wrong.path}.imagePullPolicy`, wrong.container.imagePullPolicy ?? '', ['Always'])),
      );
    }
  }
}
