// startKapi({ simulatedNodes: 2 }) from the built package, seen through client-node: the nodes,
// then a pod bound to one of them until it runs. Prints one JSON report.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startKapi } from 'kapi/testing';

const kapi = await startKapi({ simulatedNodes: 2 });
try {
  const kc = new KubeConfig();
  kc.loadFromString(kapi.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const nodes = (await core.listNode()).items.map((n) => [n.metadata.name, n.status.conditions.find((c) => c.type === 'Ready').status]);
  await core.createNamespacedPod({
    namespace: 'default',
    body: { metadata: { name: 'hello' }, spec: { nodeName: 'kapi-node-1', containers: [{ name: 'app', image: 'nginx' }] } },
  });
  let pod;
  for (let i = 0; i < 200; i++) {
    pod = await core.readNamespacedPod({ namespace: 'default', name: 'hello' });
    if (pod.status?.phase === 'Running' && pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  process.stdout.write(JSON.stringify({ nodes, pod: { phase: pod.status?.phase, ready, hostIP: pod.status?.hostIP, podIP: pod.status?.podIP } }));
} finally {
  await kapi.stop();
}
