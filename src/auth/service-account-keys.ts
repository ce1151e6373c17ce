import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { algorithmOf, type JwtKey } from './jwt';
import { writeFileAtomically } from './pki-files';

/** The keys service account tokens are signed and verified with: files, shared by every replica that reads them. */
export interface ServiceAccountKeys {
  signing: JwtKey;
  verifying: JwtKey[];
}

export interface ServiceAccountKeyFiles {
  /** --service-account-signing-key-file; '' generates `sa.key` in certDir on first start. */
  signingKeyFile: string;
  /** --service-account-key-file (repeatable): PEM public keys, private keys or certificates. */
  keyFiles: string[];
  certDir: string;
}

/** kube's keyIDFromPublicKey: the unpadded base64url SHA-256 of the key's PKIX (SPKI) DER. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

function jwtKey(key: KeyObject): JwtKey {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return { key, alg: algorithmOf(key), kid: keyId(publicKey) };
}

const PEM_BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g;

/** Every public key in a PEM file, as kube's keyutil.ParsePublicKeysPEM reads them (keys, private keys, certificates). */
export function publicKeysOfPem(pem: string, file: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const [block, type] of pem.matchAll(PEM_BLOCK)) {
    if (type === 'CERTIFICATE') keys.push(new X509Certificate(block).publicKey);
    else if (type.endsWith('PRIVATE KEY')) keys.push(createPublicKey(createPrivateKey(block)));
    else if (type.endsWith('PUBLIC KEY')) keys.push(createPublicKey(block));
  }
  if (keys.length === 0) throw new Error(`${file}: no public keys found`);
  return keys;
}

/** Creates `sa.key` (ECDSA P-256, PKCS#8) in the cert dir unless it is there, and returns its path. */
function generatedSigningKeyFile(certDir: string): string {
  const file = path.join(certDir, 'sa.key');
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileAtomically(file, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  }
  return file;
}

/**
 * Loads the signing key and the verification keys. As kube-apiserver, the verification keys
 * default to the signing key's when no --service-account-key-file is given.
 */
export function loadServiceAccountKeys(files: ServiceAccountKeyFiles): ServiceAccountKeys {
  const signingFile = files.signingKeyFile || generatedSigningKeyFile(files.certDir);
  const signing = jwtKey(createPrivateKey(readFileSync(signingFile)));
  const keyFiles = files.keyFiles.length > 0 ? files.keyFiles : [signingFile];
  const verifying = keyFiles.flatMap((file) => publicKeysOfPem(readFileSync(file, 'utf8'), file)).map(jwtKey);
  return { signing, verifying };
}

/** One JWK as go-jose writes it (field order included), for /openid/v1/jwks. */
function jwkOf({ key, alg, kid }: JwtKey): Record<string, unknown> {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty === 'RSA') return { use: 'sig', kty: 'RSA', kid, alg, n: jwk.n, e: jwk.e };
  return { use: 'sig', kty: 'EC', kid, crv: jwk.crv, alg, x: jwk.x, y: jwk.y };
}

/** The JSON Web Key Set of the verification keys (serviceaccount.PublicJWKSFromKeys). */
export function jwksOf(keys: JwtKey[]): { keys: Record<string, unknown>[] } {
  const seen = new Set<string>();
  const unique = keys.filter((k) => !seen.has(k.kid) && seen.add(k.kid));
  return { keys: unique.map(jwkOf) };
}
