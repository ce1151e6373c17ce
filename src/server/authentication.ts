import { readFileSync } from 'node:fs';
import {
  audienceAgnostic,
  bearerTokenAuthenticator,
  requestHeaderAuthenticator,
  requestAuthenticator,
  serviceAccountTokenAuthenticator,
  staticTokenAuthenticator,
  tokenReviewer,
  tokenUnion,
  x509Authenticator,
  type TokenAuthenticator,
} from '../auth/authenticators';
import { loadFrontProxy, type FrontProxy } from '../aggregator/front-proxy';
import { issuerDiscovery, type IssuerDiscovery } from '../auth/oidc-discovery';
import { loadServiceAccountKeys } from '../auth/service-account-keys';
import { SERVICE_ACCOUNT_ISSUER, ServiceAccountTokens } from '../auth/service-account-tokens';
import { storeLookup } from '../auth/store-lookup';
import { loadTokenFile } from '../auth/token-file';
import type { Authenticate } from '../http/filters/authentication';
import type { ServerServices } from '../registry/types';
import type { EtcdTls } from '../storage/etcd/etcd3-kv';
import type { Config } from './config';
import { DynamicCertificates } from './dynamic-certificates';
import type { Logger } from './logger';
import { certDirOf, dialableHost, loadServingTls, type ServingTls } from './tls';

/** Everything about who a request is, built from the flags at start: TLS material, keys, authenticators. */
export interface Authentication {
  servingTls: ServingTls;
  /** The serving certificate and client CAs as the files hold them now (start() watches them). */
  certificates: DynamicCertificates;
  /** The requestheader CA and headers, and the aggregator's client certificate. */
  frontProxy: FrontProxy;
  tokens: ServiceAccountTokens;
  reviewToken: ServerServices['reviewToken'];
  authenticate: Authenticate;
  /** The issuer discovery documents, once the secure port is known. */
  discovery(securePort: number): IssuerDiscovery | null;
}

/**
 * Reads (or on first start generates) the certificates and keys and builds kube-apiserver's
 * authenticators: x509, then bearer tokens (the static token file, then service account tokens),
 * then anonymous. `store` is only called while serving requests.
 */
export function loadAuthentication(
  config: Config,
  store: ServerServices['store'],
  observeClientCertificateExpiration: (seconds: number) => void,
  log: Logger,
): Authentication {
  const servingTls = loadServingTls(config);
  const keys = loadServiceAccountKeys({
    signingKeyFile: config.serviceAccountSigningKeyFile,
    keyFiles: config.serviceAccountKeyFiles,
    certDir: certDirOf(config),
  });
  const issuers = config.serviceAccountIssuers.length > 0 ? config.serviceAccountIssuers : [SERVICE_ACCOUNT_ISSUER];
  const apiAudiences = config.apiAudiences.length > 0 ? config.apiAudiences : [issuers[0]];
  const tokens = new ServiceAccountTokens(keys, issuers, apiAudiences);
  const tokenAuthenticators: TokenAuthenticator[] = [
    ...(config.tokenAuthFile ? [audienceAgnostic(apiAudiences, staticTokenAuthenticator(loadTokenFile(config.tokenAuthFile)))] : []),
    serviceAccountTokenAuthenticator(tokens, storeLookup({ store })),
  ];
  const bearer = tokenUnion(tokenAuthenticators);
  const frontProxy = loadFrontProxy(config, certDirOf(config));
  const certificates = new DynamicCertificates(
    { serving: { cert: servingTls.cert, key: servingTls.key }, clientCa: servingTls.clientCa, requestHeaderCa: frontProxy.requestHeader.ca },
    {
      serving: config.tlsCertFile ? { cert: config.tlsCertFile, key: config.tlsPrivateKeyFile } : null,
      clientCa: config.clientCaFile,
      requestHeaderCa: config.requestheaderClientCaFile,
    },
    log,
  );
  // kube's order: requestheader (front proxies), x509, then bearer tokens; each certificate
  // authenticator verifies against its own CA alone, though the handshake asks for both.
  return {
    servingTls,
    certificates,
    frontProxy,
    tokens,
    reviewToken: tokenReviewer(bearer, apiAudiences),
    authenticate: requestAuthenticator(
      [
        requestHeaderAuthenticator(frontProxy.requestHeader, () => certificates.requestHeaderCaPool()),
        x509Authenticator(() => certificates.clientCaPool(), observeClientCertificateExpiration),
        bearerTokenAuthenticator(bearer, apiAudiences),
      ],
      config.anonymousAuth,
    ),
    discovery: (securePort) =>
      issuerDiscovery(issuers[0], config.serviceAccountJwksUri, `${dialableHost(config.advertiseAddress || config.bindAddress)}:${securePort}`, keys.verifying),
  };
}

/** --etcd-cafile, --etcd-certfile, --etcd-keyfile, for https:// endpoints (plain ones dial without TLS). */
export function etcdTls(config: Config, endpoints: string[]): EtcdTls | undefined {
  if (!endpoints.some((e) => e.startsWith('https://'))) return undefined;
  const read = (file: string): Buffer | undefined => (file ? readFileSync(file) : undefined);
  return { ca: read(config.etcdCaFile), cert: read(config.etcdCertFile), key: read(config.etcdKeyFile) };
}
