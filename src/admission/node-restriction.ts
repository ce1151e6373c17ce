import type { MaybePromise } from '../api/maybe-promise';
import { isDeepStrictEqual } from 'node:util';
import { notFound } from '../api/errors';
import type { KubeObject } from '../api/types';
import { nodeIdentity } from '../auth/node/node-identity';
import { podSecretNames, podConfigMapNames } from '../auth/node/object-references';
import type { PersistentVolumeClaim, Pod } from '../generated/types/core/v1';
import { requestOf } from '../resources/certificatesigningrequests';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { admissionForbidden } from './admission-forbidden';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** v1.LabelNamespaceNodeRestriction */
const NODE_RESTRICTION_LABELS = 'node-restriction.kubernetes.io';
/** kubeletapis' kubeletLabels and kubeletLabelNamespaces: what a kubelet may set on its Node. */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
/** The signers whose certificates name a node (KubeletServingSignerName, KubeAPIServerClientKubeletSignerName). */
const NODE_SIGNERS = new Set(['kubernetes.io/kubelet-serving', 'kubernetes.io/kube-apiserver-client-kubelet']);

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (namespace: string, domain: string): boolean => namespace === domain || namespace.endsWith(`.${domain}`);

/** kubeletapis.IsKubeletLabel */
const isKubeletLabel = (key: string): boolean => KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((d) => inNamespace(labelNamespace(key), d));

/** getModifiedLabels then getForbiddenLabels: the changed node-restriction labels and kubernetes.io / k8s.io labels a kubelet may not set, sorted. */
function forbiddenLabels(labels: Record<string, string> = {}, old: Record<string, string> = {}): string[] {
  const changed = new Set([...Object.keys(labels), ...Object.keys(old)].filter((k) => labels[k] !== old[k]));
  return [...changed]
    .filter((key) => {
      const ns = labelNamespace(key);
      if (inNamespace(ns, NODE_RESTRICTION_LABELS)) return true;
      return (inNamespace(ns, 'kubernetes.io') || inNamespace(ns, 'k8s.io')) && !isKubeletLabel(key);
    })
    .sort();
}

export interface NodeRestrictionLookups {
  pod(namespace: string, name: string): MaybePromise<KubeObject | null>;
  node(name: string): MaybePromise<KubeObject | null>;
}

/**
 * NodeRestriction (plugin/pkg/admission/noderestriction): what the Node authorizer lets any node
 * write is confined here to the node's own objects: its Node (no taints, no restricted labels),
 * its mirror pods, the status and eviction of pods bound to it, tokens for those pods, its Lease,
 * CSINode and ResourceSlices, and CSRs for its own name.
 */
export class NodeRestriction implements AdmissionPlugin {
  readonly name = 'NodeRestriction';

  constructor(private readonly lookups: NodeRestrictionLookups) {}

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    const identity = nodeIdentity(attrs.user);
    if (!identity.isNode) return;
    const node = identity.nodeName;
    if (!node) throw admissionForbidden(attrs, `could not determine node from user ${JSON.stringify(attrs.user.name)}`);
    switch (`${attrs.def.group}/${attrs.def.resource}`) {
      case '/pods':
        if (attrs.subresource === '') return this.pod(node, attrs);
        if (attrs.subresource === 'status') return podStatus(node, attrs);
        if (attrs.subresource === 'eviction') return this.eviction(node, attrs);
        throw admissionForbidden(attrs, `unexpected pod subresource ${JSON.stringify(attrs.subresource)}, only 'status' and 'eviction' are allowed`);
      case '/nodes':
        return nodeWrite(node, attrs);
      case '/persistentvolumeclaims':
        if (attrs.subresource !== 'status') throw admissionForbidden(attrs, 'may only update PVC status');
        return claimStatus(node, attrs);
      case '/serviceaccounts':
        return this.token(node, attrs);
      case 'coordination.k8s.io/leases':
        if (attrs.namespace !== NODE_LEASE_NAMESPACE)
          throw admissionForbidden(attrs, `can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`);
        return ownNamed(node, attrs, 'node lease');
      case 'storage.k8s.io/csinodes':
        return ownNamed(node, attrs, 'CSINode');
      case 'resource.k8s.io/resourceslices':
        return resourceSlice(node, attrs);
      case 'certificates.k8s.io/certificatesigningrequests':
        return certificateRequest(node, attrs);
      default:
        return;
    }
  }

  /** admitPod: a node creates only mirror pods of its own, and deletes only pods bound to it. */
  private async pod(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation === 'CREATE') return this.mirrorPod(node, attrs);
    if (attrs.operation !== 'DELETE')
      throw admissionForbidden(
        attrs,
        `unexpected operation ${JSON.stringify(attrs.operation)}, node ${JSON.stringify(node)} can only create and delete mirror pods`,
      );
    const existing = await this.existingPod(attrs.namespace, attrs.name);
    if ((existing as Pod).spec?.nodeName !== node)
      throw admissionForbidden(attrs, `node ${JSON.stringify(node)} can only delete pods with spec.nodeName set to itself`);
  }

  /** admitPodCreate */
  private async mirrorPod(node: string, attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object as Pod;
    const q = JSON.stringify(node);
    if (!(MIRROR_POD_ANNOTATION in (pod.metadata.annotations ?? {})))
      throw admissionForbidden(attrs, `pod does not have ${JSON.stringify(MIRROR_POD_ANNOTATION)} annotation, node ${q} can only create mirror pods`);
    if ((pod.spec?.nodeName ?? '') !== node) throw admissionForbidden(attrs, `node ${q} can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length > 1) throw admissionForbidden(attrs, `node ${q} can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (!owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node)
      throw admissionForbidden(attrs, `node ${q} can only create pods with an owner reference set to itself`);
    if (owner.controller !== true) throw admissionForbidden(attrs, `node ${q} can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw admissionForbidden(attrs, `node ${q} must not set blockOwnerDeletion on an owner reference`);
    const registered = await this.lookups.node(node);
    if (!registered) throw notFound({ group: '', resource: 'nodes' }, node);
    if (owner.uid !== registered.metadata.uid)
      throw admissionForbidden(attrs, `node ${node} UID mismatch: expected ${owner.uid ?? ''} got ${registered.metadata.uid ?? ''}`);
    const spec = pod.spec ?? {};
    if (spec.serviceAccountName) throw admissionForbidden(attrs, `node ${q} can not create pods that reference a service account`);
    if (podSecretNames(pod).length > 0 || (spec.imagePullSecrets ?? []).length > 0)
      throw admissionForbidden(attrs, `node ${q} can not create pods that reference secrets`);
    if (podConfigMapNames(pod).length > 0) throw admissionForbidden(attrs, `node ${q} can not create pods that reference configmaps`);
    if ((spec.volumes ?? []).some((v) => (v.projected?.sources ?? []).some((s) => s.clusterTrustBundle)))
      throw admissionForbidden(attrs, `node ${q} can not create pods that reference clustertrustbundles`);
    if ((spec.volumes ?? []).some((v) => v.persistentVolumeClaim))
      throw admissionForbidden(attrs, `node ${q} can not create pods that reference persistentvolumeclaims`);
  }

  /** admitPodEviction: only of a pod bound to the node, named by the request or else the Eviction. */
  private async eviction(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== 'CREATE') throw admissionForbidden(attrs, `unexpected operation ${attrs.operation}`);
    const name = attrs.name || attrs.object?.metadata.name || '';
    if (!name) throw admissionForbidden(attrs, 'could not determine pod from request data');
    const existing = await this.existingPod(attrs.namespace, name);
    if ((existing as Pod).spec?.nodeName !== node) throw admissionForbidden(attrs, `node ${node} can only evict pods with spec.nodeName set to itself`);
  }

  /** admitServiceAccount: a token must be bound to a pod, by uid, on this node. */
  private async token(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== 'token') return;
    const ref = (attrs.object?.spec as { boundObjectRef?: { apiVersion?: string; kind?: string; name?: string; uid?: string } } | undefined)?.boundObjectRef;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw admissionForbidden(attrs, 'node requested token not bound to a pod');
    if (!ref.uid) throw admissionForbidden(attrs, 'node requested token with a pod binding without a uid');
    const pod = await this.existingPod(attrs.namespace, ref.name);
    if (ref.uid !== pod.metadata.uid)
      throw admissionForbidden(
        attrs,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    if ((pod as Pod).spec?.nodeName !== node) throw admissionForbidden(attrs, 'node requested token bound to a pod scheduled on a different node');
  }

  /** The pod lister's answer: the pod, or its NotFound as the refusal. */
  private async existingPod(namespace: string, name: string): Promise<KubeObject> {
    const pod = await this.lookups.pod(namespace, name);
    if (!pod) throw notFound({ group: '', resource: 'pods' }, name);
    return pod;
  }
}

/** admitPodStatus: only of pods bound to the node, and neither their labels nor their resource claim statuses. */
function podStatus(node: string, attrs: AdmissionAttributes): void {
  if (attrs.operation !== 'UPDATE') throw admissionForbidden(attrs, `unexpected operation ${JSON.stringify(attrs.operation)}`);
  const old = attrs.oldObject as Pod;
  const pod = attrs.object as Pod;
  const q = JSON.stringify(node);
  if (old.spec?.nodeName !== node) throw admissionForbidden(attrs, `node ${q} can only update pod status for pods with spec.nodeName set to itself`);
  if (!isDeepStrictEqual(old.metadata.labels ?? {}, pod.metadata.labels ?? {}))
    throw admissionForbidden(attrs, `node ${q} cannot update labels through pod status`);
  const claims = (p: Pod) => (p.status?.resourceClaimStatuses ?? []).map((s) => [s.name, s.resourceClaimName ?? null]);
  if (!isDeepStrictEqual(claims(old), claims(pod))) throw admissionForbidden(attrs, `node ${q} cannot update resource claim statues`);
}

/** admitPVCStatus: a node changes only a claim's capacity, conditions and allocated resources (RecoverVolumeExpansionFailure is on). */
function claimStatus(node: string, attrs: AdmissionAttributes): void {
  if (attrs.operation !== 'UPDATE') throw admissionForbidden(attrs, `unexpected operation ${JSON.stringify(attrs.operation)}`);
  const comparable = (claim: KubeObject) => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = claim.metadata;
    const {
      capacity: _c,
      conditions: _co,
      allocatedResourceStatuses: _ars,
      allocatedResources: _ar,
      ...status
    } = (claim as PersistentVolumeClaim).status ?? {};
    return { ...claim, metadata, status };
  };
  const old = comparable(attrs.oldObject!);
  const claim = comparable(attrs.object!);
  if (isDeepStrictEqual(old, claim)) return;
  const changed = [...new Set([...Object.keys(old), ...Object.keys(claim)])].filter(
    (k) => !isDeepStrictEqual(old[k as keyof typeof old], claim[k as keyof typeof claim]),
  );
  throw admissionForbidden(
    attrs,
    `node ${JSON.stringify(node)} is not allowed to update fields other than status.quantity and status.conditions: ${changed.sort().join(', ')} changed`,
  );
}

/** admitNode: only its own Node; no configSource; on update no taint or ownerReferences changes; never restricted labels. */
function nodeWrite(node: string, attrs: AdmissionAttributes): void {
  const requested = attrs.name || attrs.object?.metadata.name || '';
  const q = JSON.stringify(node);
  if (requested !== node) throw admissionForbidden(attrs, `node ${q} is not allowed to modify node ${JSON.stringify(requested)}`);
  const spec = (obj: KubeObject | undefined) => (obj?.spec ?? {}) as { configSource?: unknown; taints?: unknown };
  if (attrs.operation === 'CREATE') {
    if (spec(attrs.object).configSource) throw admissionForbidden(attrs, `node ${q} is not allowed to create pods with a non-nil configSource`);
    const labels = forbiddenLabels(attrs.object?.metadata.labels);
    if (labels.length > 0) throw admissionForbidden(attrs, `node ${q} is not allowed to set the following labels: ${labels.join(', ')}`);
  }
  if (attrs.operation === 'UPDATE') {
    const source = spec(attrs.object).configSource;
    if (source && !isDeepStrictEqual(source, spec(attrs.oldObject).configSource))
      throw admissionForbidden(attrs, `node ${q} is not allowed to update configSource to a new non-nil configSource`);
    if (!isDeepStrictEqual(spec(attrs.object).taints ?? [], spec(attrs.oldObject).taints ?? []))
      throw admissionForbidden(attrs, `node ${q} is not allowed to modify taints`);
    // CVE-2025-5187: an owner that does not exist (or is deleted) would have the garbage collector
    // delete the Node, which the node could then create again without the taints and with labels
    // it may not set.
    if (!isDeepStrictEqual(attrs.object?.metadata.ownerReferences ?? [], attrs.oldObject?.metadata.ownerReferences ?? []))
      throw admissionForbidden(attrs, `node ${q} is not allowed to modify ownerReferences`);
    const labels = forbiddenLabels(attrs.object?.metadata.labels, attrs.oldObject?.metadata.labels);
    if (labels.length > 0) throw admissionForbidden(attrs, `is not allowed to modify labels: ${labels.join(', ')}`);
  }
}

/** admitLease and admitCSINode: the object named as the node (on create, the object's name). */
function ownNamed(node: string, attrs: AdmissionAttributes, kind: string): void {
  const name = attrs.operation === 'CREATE' ? (attrs.object?.metadata.name ?? '') : attrs.name;
  if (name !== node) throw admissionForbidden(attrs, `can only access ${kind} with the same name as the requesting node`);
}

/** admitResourceSlice: created and deleted only with the node's own spec.nodeName. */
function resourceSlice(node: string, attrs: AdmissionAttributes): void {
  const nodeName = (obj: KubeObject | undefined) => (obj?.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
  if (attrs.operation === 'CREATE' && nodeName(attrs.object) !== node)
    throw admissionForbidden(attrs, 'can only create ResourceSlice with the same NodeName as the requesting node');
  if (attrs.operation === 'DELETE' && nodeName(attrs.oldObject) !== node)
    throw admissionForbidden(attrs, 'can only delete ResourceSlice with the same NodeName as the requesting node');
}

/** admitCSR: a request to a node signer names this node as its common name. */
function certificateRequest(node: string, attrs: AdmissionAttributes): void {
  if (attrs.operation !== 'CREATE' || attrs.subresource !== '' || !attrs.object) return;
  const signer = (attrs.object.spec as { signerName?: string } | undefined)?.signerName ?? '';
  if (!NODE_SIGNERS.has(signer)) return;
  let commonName: string;
  try {
    commonName = requestOf(attrs.object).names.commonName;
  } catch (err) {
    throw admissionForbidden(attrs, `unable to parse csr: ${(err as Error).message}`);
  }
  if (commonName !== `system:node:${node}`) throw admissionForbidden(attrs, `can only create a node CSR with CN=system:node:${node}`);
}
