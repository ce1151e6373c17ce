import { kubectl, serverProcessForFile } from '../harness/process';

/** An applied HPA, kubectl create priorityclass and an applied EndpointSlice, against the built server. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

test('kubectl autoscale (an autoscaling/v1 HPA) shows as v2 too', async () => {
  expect((await k('create', 'deployment', 'api', '--image=nginx')).stdout.trim()).toBe('deployment.apps/api created');
  expect((await k('autoscale', 'deployment', 'api', '--min=2', '--max=5', '--cpu-percent=60')).stdout.trim()).toBe(
    'horizontalpodautoscaler.autoscaling/api autoscaled',
  );
  expect((await k('get', 'hpa', 'api', '-o', 'jsonpath={.spec.metrics[0].resource.target.averageUtilization}')).stdout).toBe('60');
  expect((await k('get', 'horizontalpodautoscalers.v1.autoscaling', 'api', '-o', 'jsonpath={.spec.targetCPUUtilizationPercentage}')).stdout).toBe('60');
  expect((await k('delete', 'hpa', 'api')).stdout.trim()).toBe('horizontalpodautoscaler.autoscaling "api" deleted');
});

test('an autoscaling/v2 HPA for a deployment; get hpa shows its columns', async () => {
  expect((await k('create', 'deployment', 'web', '--image=nginx')).stdout.trim()).toBe('deployment.apps/web created');
  const manifest = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 60
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).stdout.trim()).toBe('horizontalpodautoscaler.autoscaling/web created');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).stdout.trim()).toBe('horizontalpodautoscaler.autoscaling/web unchanged');
  const hpa = JSON.parse((await k('get', 'hpa', 'web', '-o', 'json')).stdout);
  expect(hpa.apiVersion).toBe('autoscaling/v2');
  expect(hpa.status).toEqual({ currentMetrics: null, desiredReplicas: 0 });
  expect((await k('get', 'hpa')).stdout).toMatch(
    /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nweb\s+Deployment\/web\s+cpu: <unknown>\/60%\s+2\s+5\s+0\s+\S+\n$/,
  );
  expect((await k('get', 'all')).stdout).toContain('horizontalpodautoscaler.autoscaling/web');
});

test('kubectl create priorityclass; get pc', async () => {
  expect((await k('create', 'priorityclass', 'high', '--value=1000', '--description=x')).stdout.trim()).toBe('priorityclass.scheduling.k8s.io/high created');
  // kube's two system classes exist from the first start.
  expect((await k('get', 'pc')).stdout).toMatch(
    /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\nhigh\s+1000\s+false\s+\S+\s+PreemptLowerPriority\nsystem-cluster-critical\s+2000000000\s+false\s+\S+\s+PreemptLowerPriority\nsystem-node-critical\s+2000001000\s+false\s+\S+\s+PreemptLowerPriority\n$/,
  );
});

test('an EndpointSlice applies twice, the second time unchanged; get endpointslices', async () => {
  const manifest = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc
  labels:
    kubernetes.io/service-name: web
addressType: IPv4
ports:
- name: http
  protocol: TCP
  port: 80
endpoints:
- addresses: ["10.0.0.1"]
  conditions:
    ready: true
- addresses: ["10.0.0.2"]
  conditions: {}
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).stdout.trim()).toBe('endpointslice.discovery.k8s.io/web-abc created');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).stdout.trim()).toBe('endpointslice.discovery.k8s.io/web-abc unchanged');
  // default/kubernetes's slice lists this server.
  expect((await k('get', 'endpointslices')).stdout).toMatch(
    /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\nkubernetes\s+IPv4\s+\d+\s+127\.0\.0\.1\s+\S+\nweb-abc\s+IPv4\s+80\s+10\.0\.0\.1,10\.0\.0\.2\s+\S+\n$/,
  );
});
