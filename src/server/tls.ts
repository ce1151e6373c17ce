import { constants } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureServer as createHttp2SecureServer, type Settings } from 'node:http2';
import type { RequestListener } from 'node:http';
import { hostname } from 'node:os';
import path from 'node:path';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import type { PemPair } from '../auth/certificates';
import { recordHandshakePeer } from '../auth/handshake-peer';
import { ensureCertificateAuthority, ensureServingCertificate } from '../auth/pki';
import type { CertificateContent, DynamicCertificates } from './dynamic-certificates';
import { Http2Request, Http2Response, type SecurePortServer } from './http2-compat';
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

/** The HTTP/2 side of the secure port (SecureServingInfo.Serve's http.HTTP2Config). */
export interface Http2Limits {
  /** --http2-max-streams-per-connection; 0 for kube's 100 (the streams Go's clients open at first). */
  maxStreamsPerConnection: number;
}

/** At least 99% of serialized resources are smaller (kube's resourceBody99Percentile): the largest frame read, and each stream's receive window. */
const RESOURCE_BODY_99_PERCENTILE = 256 * 1024;
/** http.Server's MaxHeaderBytes (1 MiB) padded as x/net/http2's maxHeaderListSize pads it: 32 bytes for each of 10 typical fields. */
const MAX_HEADER_LIST_SIZE = (1 << 20) + 10 * 32;

/** SETTINGS the secure port advertises to HTTP/2 clients, as kube-apiserver's. */
function http2Settings(limits: Http2Limits): Settings {
  return {
    maxConcurrentStreams: limits.maxStreamsPerConnection > 0 ? limits.maxStreamsPerConnection : 100,
    maxFrameSize: RESOURCE_BODY_99_PERCENTILE,
    initialWindowSize: RESOURCE_BODY_99_PERCENTILE,
    maxHeaderListSize: MAX_HEADER_LIST_SIZE,
  };
}

/**
 * The HTTPS listener, HTTP/2 and HTTP/1.1 by ALPN (h2 first, as Go's server offers them): a
 * client certificate is asked for but not required, and one that does not verify is left to the
 * x509 authenticator to refuse with a 401, as kube-apiserver's tls.RequestClientCert does. A
 * connection that tries to renegotiate is closed. The certificate of the handshake is recorded
 * then, and is the only one the authenticators ever read, for every stream of an HTTP/2 connection
 * too. New content of `certificates` serves new connections; open ones keep the context of their
 * handshake. HTTP/1.1 connections are node's https ones; HTTP/2 streams reach the same listener
 * through `Http2Request` and `Http2Response`.
 */
export function createSecureServer(certificates: DynamicCertificates, limits: Http2Limits, listener: RequestListener): SecurePortServer {
  const settings = http2Settings(limits);
  const server = createHttp2SecureServer(
    {
      ...secureContextOptions(certificates.current()),
      requestCert: true,
      rejectUnauthorized: false,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      // https.Server's (and Go's) Nagle setting.
      noDelay: true,
      allowHTTP1: true,
      settings,
      // Room for every stream's window (node's default is 10 MB), in MB.
      maxSessionMemory: Math.max(10, (RESOURCE_BODY_99_PERCENTILE * settings.maxConcurrentStreams!) / (1 << 20)),
      Http2ServerRequest: Http2Request,
      Http2ServerResponse: Http2Response,
    },
    // Http2Request and Http2Response carry what the handlers read and write of node's HTTP/1.1 objects.
    listener as unknown as (req: Http2Request, res: Http2Response) => void,
  );
  certificates.onChange((content) => server.setSecureContext(secureContextOptions(content)));
  // Before the HTTP layers take the connection (node's HTTP/2 session reads at once).
  server.prependListener('secureConnection', (socket: TLSSocket) => {
    socket.disableRenegotiation();
    recordHandshakePeer(socket);
  });
  // The connection window holds every stream's (MaxReceiveBufferPerConnection).
  server.on('session', (session) => session.setLocalWindowSize(RESOURCE_BODY_99_PERCENTILE * settings.maxConcurrentStreams!));
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
