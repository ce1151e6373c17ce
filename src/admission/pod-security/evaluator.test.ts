import { evaluatePod, forbiddenDetail, forbiddenReason } from './evaluator';
import type { LevelVersion } from './levels';

const latest = (level: LevelVersion['level']): LevelVersion => ({ level, version: null });
const at = (level: LevelVersion['level'], version: number): LevelVersion => ({ level, version });
const detail = (lv: LevelVersion, spec: Record<string, unknown>, meta: Record<string, unknown> = {}): string => forbiddenDetail(evaluatePod(lv, meta, spec));

/** A pod restricted admits: non-root, no escalation, all capabilities dropped, RuntimeDefault seccomp. */
const restrictedContainer = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: 'x',
  securityContext: {
    allowPrivilegeEscalation: false,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
    ...extra,
  },
});

describe('restricted', () => {
  test('a bare container: the four violations in check order, as kube words them', () => {
    expect(detail(latest('restricted'), { containers: [{ name: 'c', image: 'x' }] })).toBe(
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  test('a compliant pod passes; pod-level runAsNonRoot and seccomp cover its containers', () => {
    expect(evaluatePod(latest('restricted'), {}, { containers: [restrictedContainer('a')] })).toEqual([]);
    const c = { name: 'a', image: 'x', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } };
    expect(evaluatePod(latest('restricted'), {}, { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'Localhost' } }, containers: [c] })).toEqual(
      [],
    );
  });

  test('plural containers, init and ephemeral containers visited in kube order', () => {
    const spec = {
      initContainers: [{ name: 'i' }],
      containers: [restrictedContainer('a'), { name: 'b', securityContext: { allowPrivilegeEscalation: true } }],
      ephemeralContainers: [{ name: 'e' }],
    };
    expect(evaluatePod(latest('restricted'), {}, spec)[0]).toEqual({
      reason: 'allowPrivilegeEscalation != false',
      detail: 'containers "i", "b", "e" must set securityContext.allowPrivilegeEscalation=false',
    });
  });

  test('explicit runAsNonRoot=false and runAsUser=0 on pod and container', () => {
    const spec = { securityContext: { runAsNonRoot: false, runAsUser: 0 }, containers: [restrictedContainer('a', { runAsNonRoot: false, runAsUser: 0 })] };
    expect(detail(latest('restricted'), spec)).toBe(
      'runAsNonRoot != true (pod and container "a" must not set securityContext.runAsNonRoot=false), runAsUser=0 (pod and container "a" must not set runAsUser=0)',
    );
  });

  test('capabilities beyond NET_BIND_SERVICE replace the baseline capabilities check', () => {
    const spec = { containers: [restrictedContainer('a', { capabilities: { add: ['SYS_ADMIN', 'CHOWN'] } })] };
    expect(detail(latest('restricted'), spec)).toBe(
      'unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "CHOWN", "SYS_ADMIN" in securityContext.capabilities.add)',
    );
  });

  test('volume types: hostPath reported once, by the restricted check', () => {
    const spec = {
      containers: [restrictedContainer('a')],
      volumes: [
        { name: 'h', hostPath: { path: '/' } },
        { name: 'n', nfs: { server: 's', path: '/' } },
        { name: 'ok', emptyDir: {} },
      ],
    };
    expect(detail(latest('restricted'), spec)).toBe('restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")');
  });

  test('Windows pods skip the Linux-only checks from v1.25, not before', () => {
    const spec = { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'w' }] };
    expect(evaluatePod(latest('restricted'), {}, spec)).toEqual([]);
    expect(forbiddenReason(evaluatePod(at('restricted', 24), {}, spec))).toBe('allowPrivilegeEscalation != false, unrestricted capabilities, seccompProfile');
  });

  test('older versions lack the newer checks: runAsUser from v1.23, seccomp from v1.19', () => {
    const spec = { containers: [restrictedContainer('a', { runAsUser: 0, seccompProfile: undefined })] };
    expect(forbiddenReason(evaluatePod(latest('restricted'), {}, spec))).toBe('runAsUser=0, seccompProfile');
    expect(forbiddenReason(evaluatePod(at('restricted', 22), {}, spec))).toBe('seccompProfile');
    expect(forbiddenReason(evaluatePod(at('restricted', 18), {}, spec))).toBe('');
  });
});

describe('baseline', () => {
  test('the restricted-only fields pass; privileged, host namespaces, hostPath and hostPort do not', () => {
    expect(evaluatePod(latest('baseline'), {}, { containers: [{ name: 'c' }] })).toEqual([]);
    const spec = {
      hostNetwork: true,
      hostIPC: true,
      containers: [
        {
          name: 'a',
          securityContext: { privileged: true },
          ports: [
            { containerPort: 80, hostPort: 8080 },
            { containerPort: 9, hostPort: 10000 },
          ],
        },
        { name: 'b', securityContext: { capabilities: { add: ['NET_ADMIN', 'CHOWN'] } } },
      ],
      volumes: [{ name: 'root', hostPath: { path: '/' } }],
    };
    expect(detail(latest('baseline'), spec)).toBe(
      'non-default capabilities (container "b" must not include "NET_ADMIN" in securityContext.capabilities.add), ' +
        'host namespaces (hostNetwork=true, hostIPC=true), hostPath volumes (volume "root"), ' +
        'hostPort (container "a" uses hostPorts 10000, 8080), privileged (container "a" must not set securityContext.privileged=true)',
    );
  });

  test('AppArmor, SELinux, procMount, seccomp, sysctls and hostProcess', () => {
    const spec = {
      securityContext: {
        appArmorProfile: { type: 'Unconfined' },
        seLinuxOptions: { type: 'spc_t', user: 'root' },
        seccompProfile: { type: 'Unconfined' },
        sysctls: [
          { name: 'kernel.msgmax', value: '1' },
          { name: 'net.ipv4.tcp_rmem', value: '1' },
          { name: 'vm.swappiness', value: '1' },
        ],
        windowsOptions: { hostProcess: true },
      },
      containers: [{ name: 'c', securityContext: { procMount: 'Unmasked' } }],
    };
    const meta = { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' } };
    expect(detail(latest('baseline'), spec, meta)).toBe(
      'forbidden AppArmor profiles (pod and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/c="unconfined""), ' +
        'procMount (container "c" must not set securityContext.procMount to "Unmasked"), ' +
        'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set), ' +
        'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined"), ' +
        'forbidden sysctls (kernel.msgmax, vm.swappiness), ' +
        'hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)',
    );
  });

  test('version revisions: tcp_rmem allowed from v1.32, container_engine_t from v1.31, probe hosts from v1.34', () => {
    const sysctl = { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '1' }] }, containers: [{ name: 'c' }] };
    expect(detail(at('baseline', 31), sysctl)).toBe('forbidden sysctls (net.ipv4.tcp_rmem)');
    expect(detail(at('baseline', 32), sysctl)).toBe('');
    const selinux = { containers: [{ name: 'c', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }] };
    expect(detail(at('baseline', 30), selinux)).toBe('seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "container_engine_t")');
    expect(detail(at('baseline', 31), selinux)).toBe('');
    const probes = {
      containers: [{ name: 'c', livenessProbe: { httpGet: { host: '10.0.0.1', port: 80 } }, lifecycle: { preStop: { tcpSocket: { host: 'evil', port: 1 } } } }],
    };
    expect(detail(latest('baseline'), probes)).toBe('probe or lifecycle host (container "c" uses probe or lifecycle hosts "10.0.0.1", "evil")');
    expect(detail(at('baseline', 33), probes)).toBe('');
    expect(detail(at('baseline', 99), probes)).toBe(detail(latest('baseline'), probes));
  });

  test('the alpha seccomp annotations before v1.19, the field after', () => {
    const meta = { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } };
    expect(detail(at('baseline', 18), { containers: [{ name: 'c' }] }, meta)).toBe(
      'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")',
    );
    expect(detail(at('baseline', 19), { containers: [{ name: 'c' }] }, meta)).toBe('');
  });

  test('privileged evaluates nothing', () => {
    expect(evaluatePod(latest('privileged'), {}, { hostPID: true, containers: [{ name: 'c', securityContext: { privileged: true } }] })).toEqual([]);
  });
});
