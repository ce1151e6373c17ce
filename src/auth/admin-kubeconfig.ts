import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createLeafCertificate, type PemPair } from './certificates';
import { writeFileAtomically } from './pki-files';

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

/** A kubeconfig with one cluster, one user and one context, as kubeadm writes admin.conf. */
export function kubeconfigYaml(server: string, serverCa: string, user: string, client: PemPair): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${b64(serverCa)}`,
    `    server: ${server}`,
    '  name: kapi',
    'contexts:',
    '- context:',
    '    cluster: kapi',
    `    user: ${user}`,
    `  name: ${user}@kapi`,
    `current-context: ${user}@kapi`,
    'preferences: {}',
    'users:',
    `- name: ${user}`,
    '  user:',
    `    client-certificate-data: ${b64(client.cert)}`,
    `    client-key-data: ${b64(client.key)}`,
    '',
  ].join('\n');
}

const ADMIN = { commonName: 'kubernetes-admin', subject: 'O=system:masters\nCN=kubernetes-admin' } as const;
/** An admin certificate this close to its end is replaced at start, as certificates are renewed ahead of expiry. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

/** The admin client certificate an existing kubeconfig holds, when it is still this CA's, valid well ahead, and matches its key. */
function reusableAdminCertificate(file: string, clientCa: PemPair): PemPair | null {
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  const data = (field: string): string | null => {
    const value = new RegExp(`${field}: (\\S+)`).exec(text)?.[1];
    return value ? Buffer.from(value, 'base64').toString('utf8') : null;
  };
  const pair = { cert: data('client-certificate-data'), key: data('client-key-data') };
  if (!pair.cert || !pair.key) return null;
  try {
    const cert = new X509Certificate(pair.cert);
    const ca = new X509Certificate(clientCa.cert);
    const fresh = Date.now() >= Date.parse(cert.validFrom) && Date.parse(cert.validTo) - Date.now() > RENEW_BEFORE_MS;
    const ours = cert.subject === ADMIN.subject && cert.checkIssued(ca) && cert.verify(ca.publicKey) && cert.checkPrivateKey(createPrivateKey(pair.key));
    return fresh && ours ? { cert: pair.cert, key: pair.key } : null;
  } catch {
    return null;
  }
}

/**
 * Writes the cluster admin's kubeconfig for `server`, trusting `serverCa` (rewritten at every
 * start, as the server's address may have changed): a client certificate `CN=kubernetes-admin,
 * O=system:masters` signed by the client CA, the one already there while it stays valid, so
 * restarts do not mint a new year-long admin credential each time.
 */
export function writeAdminKubeconfig(file: string, server: string, serverCa: string, clientCa: PemPair): void {
  const client =
    reusableAdminCertificate(file, clientCa) ??
    createLeafCertificate(clientCa, { commonName: ADMIN.commonName, organizations: ['system:masters'], usage: 'client', validDays: 365 });
  writeFileAtomically(file, kubeconfigYaml(server, serverCa, ADMIN.commonName, client), 0o600);
}
