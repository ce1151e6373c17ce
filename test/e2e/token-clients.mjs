// Outside verifiers of a kapi service account token, in their own process (ES modules): jose checks
// it against the published JWKS; client-node lists namespaces with it. Prints one JSON report.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createLocalJWKSet, jwtVerify } from 'jose';

const { server, ca, token, jwks, issuer, audience } = JSON.parse(process.argv[2]);
const report = {};

const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer, audience });
report.jose = { sub: payload.sub, alg: protectedHeader.alg, kid: protectedHeader.kid };
try {
  await jwtVerify(`${token.slice(0, -4)}AAAA`, createLocalJWKSet(jwks), { issuer, audience });
  report.joseTampered = 'accepted';
} catch (err) {
  report.joseTampered = err.code;
}

const kc = new KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'kapi', server, caData: Buffer.from(ca).toString('base64') }],
  users: [{ name: 'bot', token }],
  contexts: [{ name: 'kapi', cluster: 'kapi', user: 'bot' }],
  currentContext: 'kapi',
});
const core = kc.makeApiClient(CoreV1Api);
const list = await core.listNamespace();
report.clientNode = list.items.map((n) => n.metadata.name);
process.stdout.write(JSON.stringify(report));
