import { constants } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { RequestListener } from 'node:http';
import { hostname } from 'node:os';
import path from 'node:path';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import type { PemPair } from '../auth/certificates';
import { recordHandshakePeer } from '../auth/handshake-peer';
import { ensureCertificateAuthority, ensureServingCertificate } from '../auth/pki';
import type { CertificateContent, DynamicCertificates } from './dynamic-certificates';
import { ConfigError } from './feature-gates';
import type { Config } from './config';

/** What the HTTPS listener serves with and verifies client certificates against. */
export interface ServingTls {
  cert: string;
  key: string;
  /** CAs that client certificates must chain to (--client-ca-file, or the generated CA). */
  clientCa: string;
  /** What clients trust the serving certificate through: the generated CA, or the last certificate of --tls-cert-file. */
  serverCa: string;
  /** The CA that signs client certificates when the client CA is kapi's own (for admin.kubeconfig); null otherwise. */
  clientSigner: PemPair | null;
}

/** --cert-dir, or `<data-dir>/pki`. */
export function certDirOf(config: Pick<Config, 'certDir' | 'dataDir'>): string {
  return config.certDir || path.join(config.dataDir, 'pki');
}

const IN_CLUSTER_NAMES = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
const UNSPECIFIED = new Set(['0.0.0.0', '::', '']);

/** The names a generated serving certificate is valid for. */
export function servingHosts(config: Pick<Config, 'advertiseAddress' | 'bindAddress'>): string[] {
  const hosts = ['localhost', '127.0.0.1', '::1', hostname(), ...IN_CLUSTER_NAMES];
  for (const address of [config.advertiseAddress, config.bindAddress]) if (!UNSPECIFIED.has(address)) hosts.push(address);
  return [...new Set(hosts)];
}

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g;

/**
 * The serving certificate and client CA: from --tls-cert-file/--tls-private-key-file and
 * --client-ca-file when given; what is not given is generated into the cert dir on first start
 * and reused after (a CA, and a serving certificate it signs).
 */
export function loadServingTls(config: Config): ServingTls {
  if (Boolean(config.tlsCertFile) !== Boolean(config.tlsPrivateKeyFile)) {
    throw new ConfigError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  const certDir = certDirOf(config);
  const needsCa = !config.tlsCertFile || !config.clientCaFile;
  const ca = needsCa ? ensureCertificateAuthority(certDir) : null;
  let serving: PemPair;
  let serverCa: string;
  if (config.tlsCertFile) {
    serving = { cert: readFileSync(config.tlsCertFile, 'utf8'), key: readFileSync(config.tlsPrivateKeyFile, 'utf8') };
    const chain = serving.cert.match(CERTIFICATE) ?? [];
    if (chain.length === 0) throw new ConfigError(`${config.tlsCertFile}: no certificate found`);
    serverCa = chain[chain.length - 1];
  } else {
    serving = ensureServingCertificate(certDir, ca!, servingHosts(config));
    serverCa = ca!.cert;
  }
  return {
    ...serving,
    serverCa,
    clientCa: config.clientCaFile ? readFileSync(config.clientCaFile, 'utf8') : ca!.cert,
    clientSigner: config.clientCaFile ? null : ca,
  };
}

/**
 * kube-apiserver's TLS handshakes are bounded by its ReadHeaderTimeout (Go's http.Server applies
 * the smallest of its read and write timeouts to the handshake); node's default is 120 s.
 */
const HANDSHAKE_TIMEOUT_MS = 32_000;

/**
 * The TLS settings of the secure port for some certificate content: TLS 1.2 and later; a client
 * certificate is asked for against both client CAs (a front proxy's too, as kube's dynamic client
 * CA unions them). A client may never renegotiate (Go's server never does): OpenSSL refuses it.
 */
function secureContextOptions(content: CertificateContent): SecureContextOptions {
  return {
    cert: content.serving.cert,
    key: content.serving.key,
    ca: `${content.clientCa}\n${content.requestHeaderCa}`,
    minVersion: 'TLSv1.2',
    secureOptions: constants.SSL_OP_NO_RENEGOTIATION,
  };
}

/**
 * The HTTPS listener: a client certificate is asked for but not required, and one that does not
 * verify is left to the x509 authenticator to refuse with a 401, as kube-apiserver's
 * tls.RequestClientCert does. A connection that tries to renegotiate is closed. The certificate of
 * the handshake is recorded then, and is the only one the authenticators ever read. New content
 * of `certificates` serves new connections; open ones keep the context of their handshake.
 */
export function createSecureServer(certificates: DynamicCertificates, listener: RequestListener): Server {
  const server = createServer(
    { ...secureContextOptions(certificates.current()), requestCert: true, rejectUnauthorized: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS },
    listener,
  );
  certificates.onChange((content) => server.setSecureContext(secureContextOptions(content)));
  server.on('secureConnection', (socket: TLSSocket) => {
    socket.disableRenegotiation();
    recordHandshakePeer(socket);
  });
  return server;
}

/** An address clients can dial: the loopback address for an unspecified bind address; IPv6 in brackets. */
export function dialableHost(address: string): string {
  if (UNSPECIFIED.has(address)) return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || address.startsWith('127.');
}
