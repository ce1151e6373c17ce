import { causes } from '../harness/causes';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

/** The 422s a Pod create gets for the container mistakes users make most, as kube's pkg/apis/core/validation words them. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const PODS = '/api/v1/namespaces/default/pods';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

type Spec = Record<string, unknown>;
const pod = (name: string, spec: Spec) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const app = (extra: Spec = {}) => ({ name: 'app', image: 'nginx:1.25', ...extra });

async function rejected(name: string, spec: Spec): Promise<string[]> {
  const res = await api.post(PODS, pod(name, spec));
  expect(res.status).toBe(422);
  expect(res.body.reason).toBe('Invalid');
  expect((await api.get(`${PODS}/${name}`)).status).toBe(404);
  return causes(res.body);
}

describe('container ports (validateContainerPorts)', () => {
  it('rejects a repeated port name, an invalid one and numbers out of range', async () => {
    const ports = [
      { name: 'http', containerPort: 80 },
      { name: 'http', containerPort: 81 },
      { name: 'Web_1', containerPort: 70000, hostPort: 65536 },
    ];
    expect(await rejected('ports', { containers: [app({ ports })] })).toEqual([
      'FieldValueDuplicate spec.containers[0].ports[1].name: Duplicate value: "http"',
      'FieldValueInvalid spec.containers[0].ports[2].name: Invalid value: "Web_1": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'FieldValueInvalid spec.containers[0].ports[2].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'FieldValueInvalid spec.containers[0].ports[2].hostPort: Invalid value: 65536: must be between 1 and 65535, inclusive',
    ]);
  });
});

describe('volume mounts and termination message policy (ValidateVolumeMounts, validateContainerCommon)', () => {
  it('reports an unnamed mount as missing and not found, a repeated path, and an unknown policy', async () => {
    const volumeMounts = [
      { name: 'data', mountPath: '/data' },
      { name: '', mountPath: '/data' },
      { name: 'nope', mountPath: '/x' },
    ];
    const spec = { containers: [app({ volumeMounts, terminationMessagePolicy: 'Sometimes' })], volumes: [{ name: 'data', emptyDir: {} }] };
    expect(await rejected('mounts', spec)).toEqual([
      'FieldValueNotSupported spec.containers[0].terminationMessagePolicy: Unsupported value: "Sometimes": supported values: "File", "FallbackToLogsOnError"',
      'FieldValueRequired spec.containers[0].volumeMounts[1].name: Required value',
      'FieldValueNotFound spec.containers[0].volumeMounts[1].name: Not found: ""',
      'FieldValueInvalid spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique',
      'FieldValueNotFound spec.containers[0].volumeMounts[2].name: Not found: "nope"',
    ]);
  });
});

describe('host network ports (SetDefaults_Pod)', () => {
  it('gives a host-network pod hostPort = containerPort, but not a pod template', async () => {
    const spec = { hostNetwork: true, containers: [app({ ports: [{ containerPort: 8080 }, { containerPort: 9090, hostPort: 9090 }] })] };
    const res = await api.post(PODS, pod('host-net', spec));
    expect(res.status).toBe(201);
    expect(res.body.spec.containers[0].ports.map((p: { hostPort?: number }) => p.hostPort)).toEqual([8080, 9090]);
    const tpl = await api.post('/api/v1/namespaces/default/podtemplates', {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 'host-net' },
      template: { spec },
    });
    expect(tpl.status).toBe(201);
    expect(tpl.body.template.spec.containers[0].ports[0].hostPort).toBeUndefined();
  });
});

describe('host ports (checkHostPortConflicts)', () => {
  it('refuses one host port taken twice among the containers, but not across init containers', async () => {
    const ports = (hostPort: number) => [{ containerPort: 80, hostPort }];
    const spec = {
      containers: [app({ ports: ports(8080) }), { name: 'two', image: 'x:1', ports: ports(8080) }],
      initContainers: [
        { name: 'i1', image: 'x:1', ports: ports(8080) },
        { name: 'i2', image: 'x:1', ports: ports(8080) },
      ],
    };
    expect(await rejected('host-ports', spec)).toEqual(['FieldValueDuplicate spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"']);
  });
});

describe('env (ValidateEnv, relaxed names since 1.34)', () => {
  it('accepts any printable ASCII name but one with "=" or a control character', async () => {
    const ok = await api.post(PODS, pod('env-relaxed', { containers: [app({ env: [{ name: '1st.var-name with space', value: 'x' }] })] }));
    expect(ok.status).toBe(201);
    expect(await rejected('env-bad', { containers: [app({ env: [{ name: 'A=B', value: 'x' }, { name: 'TAB\there' }, { name: '' }] })] })).toEqual([
      `FieldValueInvalid spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      `FieldValueInvalid spec.containers[0].env[1].name: Invalid value: "TAB\\there": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      'FieldValueRequired spec.containers[0].env[2].name: Required value',
    ]);
  });

  it('wants exactly one valueFrom source and no value beside it (validateEnvVarValueFrom)', async () => {
    const env = [
      { name: 'A', valueFrom: {} },
      { name: 'B', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'C', valueFrom: { fieldRef: { fieldPath: 'metadata.name' }, secretKeyRef: { name: 's', key: 'k' } } },
    ];
    expect(await rejected('value-from', { containers: [app({ env })] })).toEqual([
      'FieldValueInvalid spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
      'FieldValueInvalid spec.containers[0].env[1].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
      'FieldValueInvalid spec.containers[0].env[2].valueFrom: Invalid value: "": may not have more than one field specified at a time',
    ]);
  });
});

describe('resources (ValidateContainerResourceRequirements)', () => {
  it('rejects a request above its limit, naming the requests map', async () => {
    const resources = { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '1', memory: '64Mi' } };
    expect(await rejected('over-limit', { containers: [app({ resources })] })).toEqual([
      'FieldValueInvalid spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m',
    ]);
  });

  it('wants an extended resource request equal to a limit that is set, and no negative quantity', async () => {
    const resources = { limits: { 'example.com/gpu': '2', memory: '-1Gi' }, requests: { 'example.com/gpu': '1', 'example.com/fpga': '1' } };
    expect(await rejected('extended', { containers: [app({ resources })] })).toEqual([
      'FieldValueInvalid spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
      'FieldValueInvalid spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2',
      'FieldValueRequired spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
      // SetDefaults_Pod copied the limit into the unset request.
      'FieldValueInvalid spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
    ]);
  });

  it('applies to pod templates too', async () => {
    const res = await api.post(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'over-limit' },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: {
          metadata: { labels: { app: 'x' } },
          spec: { containers: [app({ resources: { limits: { memory: '1Gi' }, requests: { memory: '2Gi' } } })] },
        },
      },
    });
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([
      'FieldValueInvalid spec.template.spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi',
    ]);
  });
});

describe('probes and lifecycle hooks (validateHandler, validateProbe)', () => {
  it('forbids a second handler and requires one', async () => {
    const livenessProbe = { exec: { command: ['true'] }, httpGet: { port: 8080 }, tcpSocket: { port: 'http' } };
    expect(await rejected('two-handlers', { containers: [app({ livenessProbe, readinessProbe: {} })] })).toEqual([
      'FieldValueForbidden spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type',
      'FieldValueForbidden spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
      'FieldValueRequired spec.containers[0].readinessProbe: Required value: must specify a handler type',
    ]);
  });

  it('checks the one handler and the thresholds', async () => {
    const livenessProbe = { httpGet: { port: 0 }, successThreshold: 2 };
    const startupProbe = { exec: {}, periodSeconds: -1 };
    expect(await rejected('bad-probe', { containers: [app({ livenessProbe, startupProbe })] })).toEqual([
      'FieldValueInvalid spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'FieldValueInvalid spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
      'FieldValueRequired spec.containers[0].startupProbe.exec.command: Required value',
      'FieldValueInvalid spec.containers[0].startupProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('defaults a lifecycle httpGet path and scheme as SetDefaults_HTTPGetAction does', async () => {
    const res = await api.post(PODS, pod('hook-defaults', { containers: [app({ lifecycle: { preStop: { httpGet: { port: 80 } } } })] }));
    expect(res.status).toBe(201);
    expect(res.body.spec.containers[0].lifecycle.preStop.httpGet).toEqual({ port: 80, path: '/', scheme: 'HTTP' });
  });
});

describe('init containers and sidecars (validateInitContainers)', () => {
  it('allows probes on a sidecar (restartPolicy Always) only', async () => {
    const sidecar = { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always', readinessProbe: { tcpSocket: { port: 9901 } } };
    expect((await api.post(PODS, pod('sidecar', { containers: [app()], initContainers: [sidecar] }))).status).toBe(201);
    const init = { name: 'init', image: 'busybox:1', livenessProbe: { exec: { command: ['true'] } } };
    expect(await rejected('bad-init', { containers: [app()], initContainers: [init, { name: 'app', image: 'x:1' }] })).toEqual([
      'FieldValueForbidden spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      'FieldValueDuplicate spec.initContainers[1].name: Duplicate value: "app"',
    ]);
  });
});

describe('create (ValidatePodCreate)', () => {
  it('refuses a node name on a pod that still has scheduling gates', async () => {
    expect(await rejected('gated-bound', { containers: [app()], nodeName: 'n1', schedulingGates: [{ name: 'example.com/a' }] })).toEqual([
      'FieldValueForbidden spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared',
    ]);
  });
});

describe('pod spec fields (ValidatePodSpec)', () => {
  it('checks scheduling gates, activeDeadlineSeconds, hostname and subdomain', async () => {
    const spec = {
      containers: [app()],
      schedulingGates: [{ name: 'example.com/a' }, { name: 'example.com/a' }, { name: 'bad gate' }],
      activeDeadlineSeconds: 0,
      hostname: 'Host_1',
    };
    expect(await rejected('spec-fields', spec)).toEqual([
      'FieldValueDuplicate spec.schedulingGates[1]: Duplicate value: "example.com/a"',
      "FieldValueInvalid spec.schedulingGates[2]: Invalid value: \"bad gate\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'FieldValueInvalid spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
      "FieldValueInvalid spec.hostname: Invalid value: \"Host_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });

  it('accepts a negative terminationGracePeriodSeconds with a warning', async () => {
    const res = await api.post(PODS, pod('negative-grace', { containers: [app()], terminationGracePeriodSeconds: -1 }));
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toContain('spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1');
  });
});

describe('images (validateContainerOnlyForPod)', () => {
  it('refuses surrounding whitespace in a Pod but not in a pod template', async () => {
    expect(await rejected('padded-image', { containers: [app({ image: ' nginx:1.25' })], initContainers: [{ name: 'i', image: '  ' }] })).toEqual([
      'FieldValueInvalid spec.containers[0].image: Invalid value: " nginx:1.25": must not have leading or trailing whitespace',
      'FieldValueInvalid spec.initContainers[0].image: Invalid value: "  ": must not have leading or trailing whitespace',
    ]);
    const tpl = await api.post('/api/v1/namespaces/default/podtemplates', {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: 'placeholder-image' },
      template: { spec: { containers: [app({ image: ' ' })] } },
    });
    expect(tpl.status).toBe(201);
  });
});

describe('tolerations and host network (ValidateTolerations, validatePodHostNetworkDeps)', () => {
  it('checks each toleration, and that a host-network hostPort is the containerPort', async () => {
    const tolerations = [
      { operator: 'Equal', value: 'x' },
      { key: 'k', operator: 'Exists', value: 'v', effect: 'NoSchedule', tolerationSeconds: 5 },
      { key: 'k', operator: 'Maybe', effect: 'Sometimes' },
    ];
    const spec = { hostNetwork: true, containers: [app({ ports: [{ containerPort: 80, hostPort: 81 }] })], tolerations };
    expect(await rejected('tolerations', spec)).toEqual([
      'FieldValueInvalid spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true',
      'FieldValueInvalid spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      'FieldValueInvalid spec.tolerations[1].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set',
      'FieldValueInvalid spec.tolerations[1].operator: Invalid value: "v": value must be empty when `operator` is \'Exists\'',
      'FieldValueNotSupported spec.tolerations[2].operator: Unsupported value: "Maybe": supported values: "Equal", "Exists"',
      'FieldValueNotSupported spec.tolerations[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]);
  });
});

describe('updates (ValidatePodUpdate)', () => {
  const toleration = { key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 60 };
  const base = () => ({
    containers: [app()],
    initContainers: [{ name: 'init', image: 'busybox:1' }],
    activeDeadlineSeconds: 100,
    tolerations: [toleration],
    schedulingGates: [{ name: 'example.com/a' }],
    terminationGracePeriodSeconds: 30,
  });

  async function update(name: string, change: (spec: Spec) => void): Promise<{ status: number; causes: string[] }> {
    const current = (await api.get(`${PODS}/${name}`)).body;
    change(current.spec);
    const res = await api.put(`${PODS}/${name}`, current);
    return { status: res.status, causes: res.status === 422 ? causes(res.body) : [] };
  }

  beforeAll(async () => {
    expect((await api.post(PODS, pod('upd', base()))).status).toBe(201);
  });

  it('refuses another container, and stops there', async () => {
    const res = await update('upd', (s) => {
      (s.containers as Spec[]).push({ name: 'two', image: 'x:1' });
      s.activeDeadlineSeconds = 500;
    });
    expect(res).toEqual({ status: 422, causes: ['FieldValueForbidden spec.containers: Forbidden: pod updates may not add or remove containers'] });
  });

  it('lets activeDeadlineSeconds only go down, and not be removed', async () => {
    expect((await update('upd', (s) => (s.activeDeadlineSeconds = 101))).causes).toEqual([
      'FieldValueInvalid spec.activeDeadlineSeconds: Invalid value: 101: must be less than or equal to previous value',
    ]);
    expect((await update('upd', (s) => delete s.activeDeadlineSeconds)).causes).toEqual([
      'FieldValueInvalid spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value',
    ]);
    expect((await update('upd', (s) => (s.activeDeadlineSeconds = 50))).status).toBe(200);
  });

  it('lets tolerations be added or their seconds changed, never one be changed or removed', async () => {
    expect((await update('upd', (s) => (s.tolerations = [{ ...toleration, value: 'w' }]))).causes).toEqual([
      'FieldValueForbidden spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ]);
    const added = { key: 'other', operator: 'Exists' };
    expect((await update('upd', (s) => (s.tolerations = [{ ...toleration, tolerationSeconds: 5 }, added]))).status).toBe(200);
  });

  it('lets scheduling gates be removed, not added', async () => {
    expect((await update('upd', (s) => (s.schedulingGates = [{ name: 'example.com/a' }, { name: 'example.com/b' }]))).causes).toEqual([
      "FieldValueForbidden spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/b'",
    ]);
    expect((await update('upd', (s) => delete s.schedulingGates)).status).toBe(200);
  });

  it('keeps terminationGracePeriodSeconds, and the rest of the spec, unchanged', async () => {
    for (const change of [(s: Spec) => (s.terminationGracePeriodSeconds = 10), (s: Spec) => (s.hostname = 'h')]) {
      const res = await update('upd', change);
      expect(res.status).toBe(422);
      expect(res.causes).toEqual([
        expect.stringMatching(/^FieldValueForbidden spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,/),
      ]);
    }
    expect((await update('upd', (s) => ((s.containers as Spec[])[0].image = 'nginx:1.27'))).status).toBe(200);
  });
});
