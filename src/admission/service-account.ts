import type { MaybePromise } from '../api/maybe-promise';
import { randomInt } from 'node:crypto';
import { forbidden, notAStatus } from '../api/errors';
import { isPlainObject, type KubeObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

/** Looks a service account up: from a cache where one exists unless `live` asks for etcd; null when absent. */
export interface ServiceAccountLookup {
  get(namespace: string, name: string, live: boolean): MaybePromise<KubeObject | null>;
}

type Obj = Record<string, unknown>;

const PODS = { group: '', resource: 'pods' };
const DEFAULT_SERVICE_ACCOUNT = 'default';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';
/** serviceaccount.DefaultAPITokenMountPath. */
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
/** An hour and a bit, as kube-apiserver asks (warnafter: the kubelet refreshes it well before). */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** The default service account is made by a controller: a pod created right after its namespace waits for it (getServiceAccount). */
const DEFAULT_ACCOUNT_ATTEMPTS = 10;
/** names.SimpleNameGenerator's alphabet: no vowels, no look-alikes. */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const randomSuffix = (): string => Array.from({ length: 5 }, () => NAME_ALPHABET[randomInt(NAME_ALPHABET.length)]).join('');

const isPod = (attrs: AdmissionAttributes): boolean => attrs.def.group === '' && attrs.def.resource === 'pods' && !!attrs.object;

/** The projected volume kube-apiserver adds (Plugin.createVolume): a bound token, the root CA and the namespace. */
function tokenVolume(name: string): Obj {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/** The pod's own preference, then the account's, then true (shouldAutomount). */
function shouldAutomount(account: KubeObject, spec: Obj): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

/** Plugin.mountServiceAccountToken: every container and init container without a mount at the token path gets one. */
function mountToken(spec: Obj): void {
  const volumes = objects(spec.volumes);
  const existing = volumes.find((v) => typeof v.name === 'string' && v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = (existing?.name as string | undefined) ?? `${TOKEN_VOLUME_PREFIX}${randomSuffix()}`;
  let needed = false;
  for (const container of [...objects(spec.initContainers), ...objects(spec.containers)]) {
    const mounts = objects(container.volumeMounts);
    if (mounts.some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
    container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
    needed = true;
  }
  if (needed && !existing) spec.volumes = [...objects(spec.volumes), tokenVolume(volumeName)];
}

/** strconv.ParseBool's true spellings. */
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/** Plugin.enforceMountableSecrets: the account's annotation asks for it (the plugin's own LimitSecretReferences is off in kube). */
function enforcesMountableSecrets(account: KubeObject): boolean {
  return GO_TRUE.has(account.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION] ?? '');
}

/** The first env or envFrom secret reference of `containers` the account does not list, in kube's words with `what` naming the container's kind. */
function envSecretProblem(containers: Obj[], what: string, allowed: Set<unknown>, account: string): string | null {
  for (const container of containers) {
    for (const env of objects(container.env)) {
      const ref = isPlainObject(env.valueFrom) && isPlainObject(env.valueFrom.secretKeyRef) ? env.valueFrom.secretKeyRef.name : undefined;
      if (ref !== undefined && !allowed.has(ref)) {
        return `${what} ${String(container.name)} with envVar ${String(env.name)} referencing secret.secretName="${String(ref)}" is not allowed because service account ${account} does not reference that secret`;
      }
    }
    for (const from of objects(container.envFrom)) {
      const ref = isPlainObject(from.secretRef) ? from.secretRef.name : undefined;
      if (ref !== undefined && !allowed.has(ref)) {
        return `${what} ${String(container.name)} with envFrom referencing secret.secretName="${String(ref)}" is not allowed because service account ${account} does not reference that secret`;
      }
    }
  }
  return null;
}

/** Plugin.limitSecretReferences: a pod may use only the secrets (volumes, env, envFrom) and pull secrets its account lists. */
function secretReferenceProblem(account: KubeObject, spec: Obj): string | null {
  const name = account.metadata.name ?? '';
  const allowed = new Set(objects(account.secrets).map((s) => s.name));
  for (const volume of objects(spec.volumes)) {
    const secret = isPlainObject(volume.secret) ? volume.secret.secretName : undefined;
    if (typeof secret === 'string' && !allowed.has(secret)) {
      return `volume with secret.secretName="${secret}" is not allowed because service account ${name} does not reference that secret`;
    }
  }
  const env =
    envSecretProblem(objects(spec.initContainers), 'init container', allowed, name) ?? envSecretProblem(objects(spec.containers), 'container', allowed, name);
  if (env) return env;
  const pullSecrets = new Set(objects(account.imagePullSecrets).map((s) => s.name));
  const pulls = objects(spec.imagePullSecrets);
  for (let i = 0; i < pulls.length; i++) {
    if (!pullSecrets.has(pulls[i].name)) {
      return `imagePullSecrets[${i}].name="${String(pulls[i].name)}" is not allowed because service account ${name} does not reference that imagePullSecret`;
    }
  }
  return null;
}

/** A mirror pod is made by a kubelet from a static manifest: it may use no API credentials (Plugin.Validate). */
function mirrorPodProblem(spec: Obj): string | null {
  if (spec.serviceAccountName) return 'a mirror pod may not reference service accounts';
  for (const volume of objects(spec.volumes)) {
    if (volume.secret) return 'a mirror pod may not reference secrets';
    const sources = isPlainObject(volume.projected) ? objects(volume.projected.sources) : [];
    if (sources.some((s) => s.secret)) return 'a mirror pod may not reference secrets';
    if (sources.some((s) => s.serviceAccountToken)) return 'a mirror pod may not use ServiceAccountToken volume projections';
  }
  return null;
}

/**
 * The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount): a pod being created
 * runs as `default` unless it names an account, the account must exist, and unless automounting
 * is off (pod, then account) every container mounts a `kube-api-access-*` projected token volume.
 */
export class ServiceAccountAdmission implements AdmissionPlugin {
  readonly name = 'ServiceAccount';

  constructor(
    private readonly accounts: ServiceAccountLookup,
    private readonly retryDelay: () => number = () => 100 + randomInt(100),
  ) {}

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    const spec = this.podSpec(attrs);
    if (!spec || attrs.object!.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;
    return this.admitPod(attrs, spec);
  }

  private async admitPod(attrs: AdmissionAttributes, spec: Obj): Promise<void> {
    // The deprecated `serviceAccount` was read into the name when the pod was defaulted (pods.ts).
    if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
    const account = await this.account(attrs, spec.serviceAccountName as string);
    if (shouldAutomount(account, spec)) mountToken(spec);
    if (objects(spec.imagePullSecrets).length === 0 && objects(account.imagePullSecrets).length > 0) {
      spec.imagePullSecrets = objects(account.imagePullSecrets).map((s) => ({ name: s.name }));
    }
  }

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (attrs.operation === 'UPDATE' && attrs.subresource === 'ephemeralcontainers' && isPod(attrs)) return this.validateEphemeralContainers(attrs);
    const spec = this.podSpec(attrs);
    if (!spec) return;
    return this.validatePod(attrs, spec);
  }

  private async validatePod(attrs: AdmissionAttributes, spec: Obj): Promise<void> {
    const podName = attrs.object!.metadata.name ?? '';
    if (attrs.object!.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
      const problem = mirrorPodProblem(spec);
      if (problem) throw forbidden(PODS, podName, problem);
      return;
    }
    if (!spec.serviceAccountName) throw forbidden(PODS, podName, `no service account specified for pod ${attrs.namespace}/${podName}`);
    const account = await this.account(attrs, spec.serviceAccountName as string);
    const problem = enforcesMountableSecrets(account) ? secretReferenceProblem(account, spec) : null;
    if (problem) throw forbidden(PODS, podName, problem);
  }

  /**
   * Plugin.limitEphemeralContainerSecretReferences: ephemeral containers added to a running pod
   * may reference only the secrets its account lists. kube returns that refusal as a plain error,
   * not a Status, so it reaches the client as a 500 without a reason.
   */
  private async validateEphemeralContainers(attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object!;
    const spec = isPlainObject(pod.spec) ? pod.spec : {};
    const podName = pod.metadata.name ?? '';
    if (!spec.serviceAccountName) throw forbidden(PODS, podName, `no service account specified for pod ${attrs.namespace}/${podName}`);
    const account = await this.account(attrs, spec.serviceAccountName as string);
    if (!enforcesMountableSecrets(account)) return;
    const allowed = new Set(objects(account.secrets).map((s) => s.name));
    const problem = envSecretProblem(objects(spec.ephemeralContainers), 'ephemeral container', allowed, account.metadata.name ?? '');
    if (problem) throw notAStatus(problem);
  }

  /** The spec of a pod being created; null for anything else (shouldIgnore, and only CREATE). */
  private podSpec(attrs: AdmissionAttributes): Obj | null {
    if (!isPod(attrs) || attrs.subresource !== '' || attrs.operation !== 'CREATE') return null;
    return isPlainObject(attrs.object?.spec) ? attrs.object.spec : null;
  }

  /** Plugin.getServiceAccount: the cache, then etcd; `default` is tried a few times, as the controller may not have made it yet. */
  private async account(attrs: AdmissionAttributes, name: string): Promise<KubeObject> {
    const { namespace } = attrs;
    let account = await this.accounts.get(namespace, name, false);
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
    const delay = this.retryDelay();
    for (let i = 0; !account && i < attempts; i++) {
      if (i > 0) await sleep(delay);
      account = await this.accounts.get(namespace, name, true);
    }
    if (account) return account;
    const podName = attrs.object!.metadata.name ?? '';
    throw forbidden(PODS, podName, `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`);
  }
}
