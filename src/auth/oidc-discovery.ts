import type { JwtKey } from './jwt';
import { jwksOf } from './service-account-keys';

/** The two documents of service account issuer discovery, encoded once (kube's serviceaccount.NewOpenIDMetadata). */
export interface IssuerDiscovery {
  configuration: Buffer;
  jwks: Buffer;
}

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

/**
 * The discovery documents, or null when the issuer is not an https URL (kube-apiserver then
 * serves neither). `jwksUri` defaults to the API server's own /openid/v1/jwks.
 */
export function issuerDiscovery(issuer: string, jwksUri: string, externalAddress: string, keys: JwtKey[]): IssuerDiscovery | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:') return null;
  const configuration = {
    issuer,
    jwks_uri: jwksUri || `https://${externalAddress}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(keys.map((k) => k.alg))].sort(),
  };
  return { configuration: Buffer.from(JSON.stringify(configuration)), jwks: Buffer.from(JSON.stringify(jwksOf(keys))) };
}
