import type { KubeObject } from '../../api/types';
import type { CachedInformer } from '../../controllers/runtime/informer';
import type { SharedInformers } from '../../controllers/runtime/shared-informers';
import type { PersistentVolume, Pod } from '../../generated/types/core/v1';
import type { ObjectStore } from '../../registry/types';
import type { NodeGraph } from './graph';

export interface GraphSources {
  pods: ObjectStore;
  persistentvolumes: ObjectStore;
  volumeattachments: ObjectStore;
  resourceslices: ObjectStore;
}

const nodeNameOf = (obj: KubeObject): string => {
  const spec = obj.spec as { nodeName?: unknown } | undefined;
  return typeof spec?.nodeName === 'string' ? spec.nodeName : '';
};

/**
 * node/graph_populator.go: informers of pods, persistent volumes, volume attachments and
 * resource slices keep the graph current. Only pods bound to a node enter it. They are views of
 * the process's shared informers (kube-apiserver's graph reads its shared informer factory too),
 * so the graph's pods are the controllers' watch of all pods, not a watch and a map of their own.
 */
export class GraphPopulator {
  private readonly informers: CachedInformer[];

  constructor(graph: NodeGraph, sources: GraphSources, shared: SharedInformers) {
    const informer = (store: ObjectStore, upsert: (obj: KubeObject) => void, remove: (obj: KubeObject) => void): CachedInformer =>
      shared.informer(store, { added: upsert, updated: (_previous, obj) => upsert(obj), deleted: remove }, { name: `node-authorizer-${store.def.resource}` });
    this.informers = [
      informer(
        sources.pods,
        (pod) => {
          if (nodeNameOf(pod)) graph.addPod(pod as Pod);
        },
        (pod) => graph.deletePod(pod.metadata.namespace ?? '', pod.metadata.name ?? ''),
      ),
      informer(
        sources.persistentvolumes,
        (pv) => graph.addPersistentVolume(pv as PersistentVolume),
        (pv) => graph.deletePersistentVolume(pv.metadata.name ?? ''),
      ),
      informer(
        sources.volumeattachments,
        (va) => graph.addNodeObject('volumeattachment', va.metadata.name ?? '', nodeNameOf(va)),
        (va) => graph.deleteNodeObject('volumeattachment', va.metadata.name ?? ''),
      ),
      informer(
        sources.resourceslices,
        (slice) => graph.addNodeObject('resourceslice', slice.metadata.name ?? '', nodeNameOf(slice)),
        (slice) => graph.deleteNodeObject('resourceslice', slice.metadata.name ?? ''),
      ),
    ];
  }

  async start(): Promise<void> {
    for (const i of this.informers) i.start();
    await Promise.all(this.informers.map((i) => i.waitForSync()));
  }

  stop(): void {
    for (const i of this.informers) i.stop();
  }
}
