import type { PersistentVolume, Pod } from '../../generated/types/core/v1';
import { persistentVolumeSecrets, podClaimNames, podConfigMapNames, podResourceClaimNames, podSecretNames } from './object-references';

/** The kinds of vertex in the node authorizer's graph (node/graph.go vertexTypes). */
export type VertexType = 'configmap' | 'node' | 'pod' | 'pvc' | 'pv' | 'resourceclaim' | 'resourceslice' | 'secret' | 'serviceaccount' | 'volumeattachment';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const vertex = (type: VertexType, namespace: string, name: string): string => `${type}/${namespace}/${name}`;

/**
 * The node authorizer's graph (plugin/pkg/auth/authorizer/node/graph.go): who leads to which
 * node. Each object the informers report owns the edges it brings, so an update replaces them
 * and a deletion removes them (deleteVertex).
 */
export class NodeGraph {
  /** from → to → how many owners brought that edge. */
  private readonly edges = new Map<string, Map<string, number>>();
  private readonly owned = new Map<string, [string, string][]>();

  /** AddPod, for a pod bound to a node: pod → node; its service account, secrets, config maps, claims and resource claims → pod. A mirror pod leads nowhere else. */
  addPod(pod: Pod): void {
    const ns = pod.metadata.namespace ?? '';
    const owner = vertex('pod', ns, pod.metadata.name ?? '');
    const edges: [string, string][] = [[owner, vertex('node', '', pod.spec?.nodeName ?? '')]];
    if (!(MIRROR_POD_ANNOTATION in (pod.metadata.annotations ?? {}))) {
      const into = (type: VertexType, names: string[]): void => {
        for (const name of names) edges.push([vertex(type, ns, name), owner]);
      };
      if (pod.spec?.serviceAccountName) into('serviceaccount', [pod.spec.serviceAccountName]);
      into('secret', podSecretNames(pod));
      into('configmap', podConfigMapNames(pod));
      into('pvc', podClaimNames(pod));
      into('resourceclaim', podResourceClaimNames(pod));
    }
    this.replace(owner, edges);
  }

  deletePod(namespace: string, name: string): void {
    this.replace(vertex('pod', namespace, name), []);
  }

  /** AddPV: pv → its claim, and the secrets a kubelet reads for it → pv; none while unbound. */
  addPersistentVolume(pv: PersistentVolume): void {
    const owner = vertex('pv', '', pv.metadata.name ?? '');
    const claim = pv.spec?.claimRef;
    const edges: [string, string][] = [];
    if (claim) {
      edges.push([owner, vertex('pvc', claim.namespace ?? '', claim.name ?? '')]);
      for (const s of persistentVolumeSecrets(pv)) edges.push([vertex('secret', s.namespace, s.name), owner]);
    }
    this.replace(owner, edges);
  }

  deletePersistentVolume(name: string): void {
    this.replace(vertex('pv', '', name), []);
  }

  /** AddVolumeAttachment and AddResourceSlice: a cluster-scoped object → the node it names, if any. */
  addNodeObject(type: 'volumeattachment' | 'resourceslice', name: string, nodeName: string): void {
    const owner = vertex(type, '', name);
    this.replace(owner, nodeName ? [[owner, vertex('node', '', nodeName)]] : []);
  }

  deleteNodeObject(type: 'volumeattachment' | 'resourceslice', name: string): void {
    this.replace(vertex(type, '', name), []);
  }

  /**
   * NodeAuthorizer.hasPathFrom: a path from the object to the node, never through another node
   * (the only edges into a node are from the objects bound to it).
   */
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    const target = vertex('node', '', nodeName);
    const start = vertex(type, namespace, name);
    const seen = new Set([start]);
    const queue = [start];
    for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
      for (const next of this.edges.get(at)?.keys() ?? []) {
        if (next === target) return true;
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
      }
    }
    return false;
  }

  private replace(owner: string, edges: [string, string][]): void {
    for (const [from, to] of this.owned.get(owner) ?? []) {
      const out = this.edges.get(from)!;
      const count = out.get(to)! - 1;
      if (count > 0) out.set(to, count);
      else out.delete(to);
      if (out.size === 0) this.edges.delete(from);
    }
    if (edges.length === 0) {
      this.owned.delete(owner);
      return;
    }
    const unique = [...new Map(edges.map((e) => [`${e[0]}\n${e[1]}`, e])).values()];
    for (const [from, to] of unique) {
      const out = this.edges.get(from) ?? new Map<string, number>();
      out.set(to, (out.get(to) ?? 0) + 1);
      this.edges.set(from, out);
    }
    this.owned.set(owner, unique);
  }
}
