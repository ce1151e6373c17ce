import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { kubectl, serverProcessForFile } from '../harness/process';

/**
 * The official Python client (Debian's python3-kubernetes, which `make install` adds) reads one
 * object of every built-in kind it has a typed API for, as the server wrote them: its models
 * refuse a required field left out (a DaemonSet's status counters, a ReplicaSet's replicas). The
 * events.k8s.io Event read is one created there: a core/v1 Event without eventTime reads as
 * `eventTime: null` there, from kube-apiserver too, which the client refuses.
 */

const kapi = serverProcessForFile();

/** The first python3 that has the kubernetes package (Debian's is /usr/bin/python3). */
function python(): string {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(candidate, ['-c', 'import kubernetes'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error('no python3 with the kubernetes package: `make install` installs python3-kubernetes');
}

const template = '{metadata: {labels: {app: py}}, spec: {containers: [{name: c, image: busybox}]}}';

const OBJECTS = `
apiVersion: v1
kind: Node
metadata: {name: py-node}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: py}
spec: {containers: [{name: c, image: busybox, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: s, namespace: py}
spec: {selector: {app: py}, ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: py}
data: {a: b}
---
apiVersion: v1
kind: Secret
metadata: {name: sec, namespace: py}
stringData: {a: b}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: py}
---
apiVersion: v1
kind: Event
metadata: {name: e, namespace: py}
involvedObject: {kind: Pod, name: p, namespace: py}
reason: Started
message: started
---
apiVersion: v1
kind: Endpoints
# Not the Service's name: the endpoints controller writes that one.
metadata: {name: manual, namespace: py}
subsets: [{addresses: [{ip: 10.0.0.1}], ports: [{port: 80}]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: claim, namespace: py}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: py-pv}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /tmp/py}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: py}
spec: {selector: {matchLabels: {app: py}}, template: ${template}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, namespace: py}
spec: {selector: {matchLabels: {app: py}}, template: ${template}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ss, namespace: py}
spec: {serviceName: s, selector: {matchLabels: {app: py}}, template: ${template}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds, namespace: py}
spec: {selector: {matchLabels: {app: py}}, template: ${template}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: py}
spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj, namespace: py}
spec: {schedule: "*/5 * * * *", jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: py}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: py}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: py-cr}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: py-crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: py-cr}
subjects: [{kind: ServiceAccount, name: sa, namespace: py}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i, namespace: py}
spec: {defaultBackend: {service: {name: s, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: py-ic}
spec: {controller: example.com/ingress}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np, namespace: py}
spec: {podSelector: {}, ingress: [{ports: [{port: 80}]}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb, namespace: py}
spec: {minAvailable: 1, selector: {matchLabels: {app: py}}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: py-sc}
provisioner: example.com/disk
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: py-pc}
value: 1000
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: l, namespace: py}
spec: {holderIdentity: me}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: es, namespace: py}
addressType: IPv4
endpoints: [{addresses: [10.0.0.1]}]
ports: [{port: 80}]
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: e2, namespace: py}
eventTime: "2024-05-06T07:08:09.123456Z"
reportingController: example.com/controller
reportingInstance: controller-1
action: Started
reason: Started
regarding: {kind: Pod, name: p, namespace: py}
type: Normal
---
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: hpa, namespace: py}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}, maxReplicas: 3}
`;

test('the Python client reads every built-in kind it has a model for, without a deserialization error', async () => {
  const interpreter = python();
  expect((await kubectl(kapi.url, ['create', 'namespace', 'py'])).code).toBe(0);
  const created = await kubectl(kapi.url, ['create', '-f', '-'], OBJECTS);
  expect(created.stderr).toBe('Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n');
  const report = await new Promise<Record<string, string>>((resolve, reject) => {
    execFile(interpreter, [path.join(__dirname, 'python-client-read.py'), kapi.url], { timeout: 50_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`python client failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout) as Record<string, string>);
    });
  });
  expect(Object.keys(report)).toHaveLength(31);
  expect(Object.entries(report).filter(([, result]) => result !== 'ok')).toEqual([]);
}, 60_000);
