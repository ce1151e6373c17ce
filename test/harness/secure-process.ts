import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { eventually } from './etcd-keys';
import { startServerProcess, type ServerProcess } from './process';
import { httpsRequest, type TlsOptions, type TlsResponse } from './tls';

/** A kapi process serving TLS only, as an attacker meets it: static-token users, the admin's client certificate, the server's CA. */
export interface SecureKapi {
  process: ServerProcess & { port: number; prefix: string };
  /** The server's CA, for clients that verify it. */
  ca: string;
  /** The admin of `<data-dir>/admin.kubeconfig` (system:masters). */
  admin: TlsOptions;
  /** A request as the admin. */
  asAdmin(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TlsResponse>;
  /** A request with a static token. */
  asToken(token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TlsResponse>;
  stop(): Promise<void>;
}

interface KubeconfigFile {
  clusters: { cluster: { 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

const decode = (b64: string) => Buffer.from(b64, 'base64').toString();

/** Starts kapi without its insecure port, with `tokens` (`token,user,uid,"groups"` lines) as --token-auth-file. */
export async function startSecureKapi(tokens: string[], extraArgs: string[] = []): Promise<SecureKapi> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kapi-sec-'));
  const tokenFile = path.join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${tokens.join('\n')}\n`, { mode: 0o600 });
  let kapi: SecureKapi['process'];
  try {
    kapi = await startServerProcess([`--token-auth-file=${tokenFile}`, ...extraArgs], { insecure: false });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const config = yaml.load(readFileSync(path.join(kapi.dataDir, 'admin.kubeconfig'), 'utf8')) as KubeconfigFile;
  const ca = decode(config.clusters[0].cluster['certificate-authority-data']);
  const admin = { ca, cert: decode(config.users[0].user['client-certificate-data']), key: decode(config.users[0].user['client-key-data']) };
  return {
    process: kapi,
    ca,
    admin,
    asAdmin: (method, p, body, headers) => httpsRequest(`${kapi.secureUrl}${p}`, admin, { method, body, headers }),
    asToken: (token, method, p, body, headers) =>
      httpsRequest(`${kapi.secureUrl}${p}`, { ca }, { method, body, headers: { Authorization: `Bearer ${token}`, ...headers } }),
    stop: async () => {
      await kapi.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/**
 * Binds `user` to a Role in `namespace` granting `rules`, and waits until the user's first rule
 * is in force (RBAC reads its policy from a cache).
 */
export async function grantRole(
  kapi: SecureKapi,
  token: string,
  user: string,
  namespace: string,
  rules: Record<string, unknown>[],
  probe: string,
): Promise<void> {
  const name = `${user}-${namespace}`;
  const role = await kapi.asAdmin('POST', `${RBAC}/namespaces/${namespace}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name },
    rules,
  });
  if (role.status !== 201) throw new Error(`role: ${role.status} ${role.text}`);
  const binding = await kapi.asAdmin('POST', `${RBAC}/namespaces/${namespace}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
  });
  if (binding.status !== 201) throw new Error(`rolebinding: ${binding.status} ${binding.text}`);
  await eventually(`${user}'s role in ${namespace}`, async () => ((await kapi.asToken(token, 'GET', probe)).status !== 403 ? true : undefined));
}

/** Binds `user` to a new ClusterRole with `rules`, waiting until `probe` (as the user, with `headers`) is no longer a 403. */
export async function grantClusterRole(
  kapi: SecureKapi,
  token: string,
  user: string,
  name: string,
  rules: Record<string, unknown>[],
  probe: { method: string; path: string; body?: unknown; headers?: Record<string, string> },
): Promise<void> {
  const role = await kapi.asAdmin('POST', `${RBAC}/clusterroles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules,
  });
  if (role.status !== 201) throw new Error(`clusterrole: ${role.status} ${role.text}`);
  const binding = await kapi.asAdmin('POST', `${RBAC}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
  });
  if (binding.status !== 201) throw new Error(`clusterrolebinding: ${binding.status} ${binding.text}`);
  await eventually(`${user}'s cluster role ${name}`, async () =>
    (await kapi.asToken(token, probe.method, probe.path, probe.body, probe.headers)).status !== 403 ? true : undefined,
  );
}
