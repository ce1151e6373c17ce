import type { ObjectStore } from '../../registry/types';
import { isStatusError } from '../../api/errors';
import type { KubeObject, OwnerReference } from '../../api/types';
import { nameIsDnsSubdomain } from '../../api/name-validation';
import type { Pod, PodTemplateSpec } from '../../generated/types/core/v1';
import type { ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import { jsonClone } from '../../api/json-clone';

/** controller.getPodsPrefix: `<owner>-`, or the owner's name alone when that would not be a valid prefix. */
function podsPrefix(ownerName: string): string {
  const prefix = `${ownerName}-`;
  return nameIsDnsSubdomain(prefix, true).length > 0 ? ownerName : prefix;
}

/** controller.GetPodFromTemplate: the template's labels, annotations, finalizers and spec, owned by `ref`. */
export function podFromTemplate(template: PodTemplateSpec, owner: KubeObject, ref: OwnerReference | null): Pod {
  const meta = template.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: podsPrefix(owner.metadata.name!),
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ...(ref ? { ownerReferences: [ref] } : {}),
    },
    spec: jsonClone(template.spec ?? {}),
  };
  return pod;
}

/** A failure caused by the namespace being deleted: kube records no event for it. */
const namespaceTerminating = (err: unknown): boolean =>
  isStatusError(err) && (err.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

/**
 * controller.RealPodControl: creates and deletes a controller's pods through the API (admitted,
 * as kube-controller-manager), recording kube's SuccessfulCreate / FailedCreate /
 * SuccessfulDelete / FailedDelete events on the owner.
 */
export class PodControl {
  constructor(
    private readonly pods: ObjectStore,
    private readonly deps: Pick<ControllerDeps, 'admitted'>,
    private readonly recorder: EventRecorder,
  ) {}

  /** Creates a pod from the template, named `name` or generated from the owner's name. */
  async createPod(namespace: string, template: PodTemplateSpec, owner: KubeObject, ref: OwnerReference | null, name?: string): Promise<Pod> {
    const pod = podFromTemplate(template, owner, ref);
    if (name) {
      pod.metadata.name = name;
      delete pod.metadata.generateName;
    }
    return this.create(namespace, pod, owner);
  }

  /** Creates a pod the controller built itself (StatefulSet, DaemonSet, Job add their own fields). */
  async create(namespace: string, pod: Pod, owner: KubeObject): Promise<Pod> {
    if (!pod.metadata.labels || Object.keys(pod.metadata.labels).length === 0) throw new Error('unable to create pods, no labels');
    try {
      const created = (await this.pods.create(this.deps.admitted(namespace), pod, { dryRun: false })) as Pod;
      this.recorder.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
      return created;
    } catch (err) {
      if (!namespaceTerminating(err)) this.recorder.event(owner, 'Warning', 'FailedCreate', `Error creating: ${messageOf(err)}`);
      throw err;
    }
  }

  async deletePod(namespace: string, name: string, owner: KubeObject): Promise<void> {
    try {
      await this.pods.delete(this.deps.admitted(namespace), name, { dryRun: false });
      this.recorder.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) throw err;
      this.recorder.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${messageOf(err)}`);
      // As kube's RealPodControl.DeletePod: the error a controller reports (a ReplicaSet's ReplicaFailure message) is wrapped.
      throw new Error(`unable to delete pods: ${messageOf(err)}`, { cause: err });
    }
  }
}

/** An error as Go's %v prints it: a Status error's message. */
export function messageOf(err: unknown): string {
  if (isStatusError(err)) return err.status.message ?? '';
  return err instanceof Error ? err.message : String(err);
}
