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

/**
 * Writes the cluster admin's kubeconfig: a client certificate `CN=kubernetes-admin,
 * O=system:masters` signed by the client CA, for `server`, trusting `serverCa`. Made afresh at
 * every start, as the server's address may have changed.
 */
export function writeAdminKubeconfig(file: string, server: string, serverCa: string, clientCa: PemPair): void {
  const client = createLeafCertificate(clientCa, { commonName: 'kubernetes-admin', organizations: ['system:masters'], usage: 'client', validDays: 365 });
  writeFileAtomically(file, kubeconfigYaml(server, serverCa, 'kubernetes-admin', client), 0o600);
}
