import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { kubectl, serverProcessForFile } from '../harness/process';

const kapi = serverProcessForFile();
const k = (args: string[], input?: string) => kubectl(kapi.url, args, input);
const dir = mkdtempSync(path.join(tmpdir(), 'kapi-token-'));
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

/** kubectl validates a review (a kind without a PATCH operation) against /openapi/v2 in Protobuf. */
const review = (token: string, audiences?: string[]) => k(['create', '-f', '-', '-o', 'json'], tokenReview(token, audiences));

const tokenReview = (token: string, audiences?: string[]) =>
  JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });

test('kubectl create token prints a JWT that a TokenReview authenticates', async () => {
  expect((await k(['create', 'serviceaccount', 'bot'])).stdout).toBe('serviceaccount/bot created\n');
  const created = await k(['create', 'token', 'bot']);
  expect(created.code).toBe(0);
  const token = created.stdout.trim();
  expect(token).toMatch(JWT);
  expect(claimsOf(token)).toMatchObject({ sub: 'system:serviceaccount:default:bot', aud: ['https://kubernetes.default.svc.cluster.local'] });
  const reviewed = await review(token);
  expect(reviewed.code).toBe(0);
  expect(JSON.parse(reviewed.stdout).status).toMatchObject({
    authenticated: true,
    user: { username: 'system:serviceaccount:default:bot', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] },
  });
});

test('kubectl create token --duration --audience', async () => {
  const created = await k(['create', 'token', 'bot', '--duration=20m', '--audience=x']);
  expect(created.code).toBe(0);
  const token = created.stdout.trim();
  const claims = claimsOf(token);
  expect(claims.aud).toEqual(['x']);
  expect(claims.exp - claims.iat).toBe(1200);
  const reviewed = await review(token, ['x']);
  expect(JSON.parse(reviewed.stdout).status).toMatchObject({ authenticated: true, audiences: ['x'] });
  const short = await k(['create', 'token', 'bot', '--duration=5m']);
  expect(short.code).not.toBe(0);
  expect(short.stderr).toContain('may not specify a duration less than 10 minutes');
  const missing = await k(['create', 'token', 'ghost']);
  expect(missing.stderr).toContain('serviceaccounts "ghost" not found');
});

test('kubectl create --raw posts a pods/binding', async () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  expect((await k(['create', '-f', '-'], JSON.stringify(pod))).code).toBe(0);
  const file = path.join(dir, 'binding.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'node-1' } }));
  const bound = await k(['create', '--raw', '/api/v1/namespaces/default/pods/p/binding', '-f', file]);
  expect(bound.code).toBe(0);
  expect(JSON.parse(bound.stdout)).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
  expect((await k(['get', 'pod', 'p', '-o', 'jsonpath={.spec.nodeName}'])).stdout).toBe('node-1');
});
