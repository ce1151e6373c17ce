import { badRequest } from '../api/errors';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import type { ConnectRequest } from '../registry/proxy/connect';
import { nodeConnection, urlHost, type NodeConnection } from '../registry/proxy/kubelet';

/** What pods/log, exec, attach and portforward share: the pod, its container, its node's kubelet. */

export function getPod(request: ConnectRequest): Promise<KubeObject> {
  return request.parent.get(request.ctx, request.name, { resourceVersion: '', match: '', signal: request.ctx.signal });
}

/** Every container name of the pod: init, regular and ephemeral (podutil.VisitContainers). */
function containerNames(pod: KubeObject): string[] {
  const spec = objectOf(pod.spec);
  return [...objectsIn(spec.initContainers), ...objectsIn(spec.containers), ...objectsIn(spec.ephemeralContainers)].map((c) => stringOf(c.name));
}

/** validateContainer (pkg/registry/core/pod/strategy.go): the named container, or the pod's only one. */
export function podContainer(pod: KubeObject, container: string): string {
  const name = pod.metadata.name;
  if (container === '') {
    const containers = objectsIn(objectOf(pod.spec).containers);
    if (containers.length === 1) return stringOf(containers[0].name);
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
  }
  if (!containerNames(pod).includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** The pod's node name; '' when it is not scheduled. */
export function podNodeName(pod: KubeObject): string {
  return stringOf(objectOf(pod.spec).nodeName);
}

/** The kubelet of a scheduled pod's node; kube's 400 for a pod not on a node yet (streamLocation). */
export async function podKubelet(request: ConnectRequest, pod: KubeObject): Promise<NodeConnection> {
  const nodeName = podNodeName(pod);
  if (nodeName === '') throw badRequest(`pod ${pod.metadata.name} does not have a host assigned`);
  return nodeConnection(request.services.store('', 'nodes'), nodeName, request.services.kubelet);
}

/** https://<node>:<port><path>?<query> on the kubelet. */
export function kubeletUrl(kubelet: NodeConnection, path: string, query: URLSearchParams): URL {
  const url = new URL(`https://${urlHost(kubelet.host, kubelet.port)}`);
  url.pathname = path;
  url.search = query.toString();
  return url;
}
