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
});

describe('resources (ValidateContainerResourceRequirements)', () => {
  it('rejects a request above its limit, naming the requests map', async () => {
    const resources = { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '1', memory: '64Mi' } };
    expect(await rejected('over-limit', { containers: [app({ resources })] })).toEqual([
      'FieldValueInvalid spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m',
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

describe('init containers and sidecars (validateInitContainers, validateContainers)', () => {
  it('allows restartPolicy Always (a sidecar, with probes) and nothing else', async () => {
    const sidecar = { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always', readinessProbe: { tcpSocket: { port: 9901 } } };
    expect((await api.post(PODS, pod('sidecar', { containers: [app()], initContainers: [sidecar] }))).status).toBe(201);
    const init = { name: 'init', image: 'busybox:1', restartPolicy: 'OnFailure', livenessProbe: { exec: { command: ['true'] } } };
    expect(await rejected('bad-init', { containers: [app({ restartPolicy: 'Always' })], initContainers: [init, { name: 'app', image: 'x:1' }] })).toEqual([
      'FieldValueForbidden spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers',
      'FieldValueNotSupported spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      'FieldValueForbidden spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      'FieldValueDuplicate spec.initContainers[1].name: Duplicate value: "app"',
    ]);
  });
});
