import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createCertificateAuthority, createLeafCertificate, type PemPair } from '../auth/certificates';
import { writeFileAtomically } from '../auth/pki-files';
import { ConfigError } from '../server/feature-gates';
import type { Config } from '../server/config';

/** What a front proxy (the aggregator, or one in front of kapi) and its trust need: kube's --requestheader-* and --proxy-client-* flags. */
export interface RequestHeaderConfig {
  /** CAs a front proxy's client certificate must chain to (PEM). */
  ca: string;
  /** Common names allowed to assert users in headers; empty allows any. */
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export interface FrontProxy {
  requestHeader: RequestHeaderConfig;
  /** The client certificate the aggregator presents to extension servers; null when none is known (a CA given without one). */
  proxyClient: PemPair | null;
}

/** The files kapi generates into --cert-dir when no front-proxy CA is given, as kubeadm names them. */
export const FRONT_PROXY_FILES = {
  caCert: 'front-proxy-ca.crt',
  caKey: 'front-proxy-ca.key',
  clientCert: 'front-proxy-client.crt',
  clientKey: 'front-proxy-client.key',
} as const;
/** The common name of the generated client certificate, kubeadm's. */
export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

function readPair(certFile: string, keyFile: string): PemPair | null {
  if (!existsSync(certFile) || !existsSync(keyFile)) return null;
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

function ensurePair(certDir: string, certName: string, keyName: string, make: () => PemPair): PemPair {
  const certFile = path.join(certDir, certName);
  const keyFile = path.join(certDir, keyName);
  const existing = readPair(certFile, keyFile);
  if (existing) return existing;
  const pair = make();
  // The key first: a reader that finds the certificate also finds its key.
  writeFileAtomically(keyFile, pair.key, 0o600);
  writeFileAtomically(certFile, pair.cert, 0o644);
  return pair;
}

/**
 * --requestheader-client-ca-file and --proxy-client-cert-file/--proxy-client-key-file, or, when no
 * CA is given, a front-proxy CA and a client certificate it signs generated into the cert dir on
 * first start and reused after (kubeadm's front-proxy-ca and front-proxy-client).
 */
export function loadFrontProxy(config: Config, certDir: string): FrontProxy {
  if (Boolean(config.proxyClientCertFile) !== Boolean(config.proxyClientKeyFile)) {
    throw new ConfigError('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  }
  const given = config.proxyClientCertFile
    ? { cert: readFileSync(config.proxyClientCertFile, 'utf8'), key: readFileSync(config.proxyClientKeyFile, 'utf8') }
    : null;
  const headers = {
    usernameHeaders: config.requestheaderUsernameHeaders.length > 0 ? config.requestheaderUsernameHeaders : ['X-Remote-User'],
    groupHeaders: config.requestheaderGroupHeaders.length > 0 ? config.requestheaderGroupHeaders : ['X-Remote-Group'],
    extraHeaderPrefixes: config.requestheaderExtraHeadersPrefix.length > 0 ? config.requestheaderExtraHeadersPrefix : ['X-Remote-Extra-'],
  };
  if (config.requestheaderClientCaFile) {
    return {
      requestHeader: { ca: readFileSync(config.requestheaderClientCaFile, 'utf8'), allowedNames: config.requestheaderAllowedNames, ...headers },
      proxyClient: given,
    };
  }
  const ca = ensurePair(certDir, FRONT_PROXY_FILES.caCert, FRONT_PROXY_FILES.caKey, () => createCertificateAuthority('front-proxy-ca'));
  const proxyClient =
    given ??
    ensurePair(certDir, FRONT_PROXY_FILES.clientCert, FRONT_PROXY_FILES.clientKey, () =>
      createLeafCertificate(ca, { commonName: FRONT_PROXY_CLIENT_NAME, usage: 'client', validDays: 365 }),
    );
  return {
    requestHeader: {
      ca: ca.cert,
      allowedNames: config.requestheaderAllowedNames.length > 0 ? config.requestheaderAllowedNames : [FRONT_PROXY_CLIENT_NAME],
      ...headers,
    },
    proxyClient,
  };
}
