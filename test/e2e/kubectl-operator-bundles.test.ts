import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applicableBundle, BUNDLES, resourceVersions } from '../harness/bundles';
import { kubectl, serverProcessForFile } from '../harness/process';

/**
 * Operators' install bundles through real kubectl, each from its first apply to nothing left:
 * client-side then server-side apply and their no-op re-applies, `get` of every kind (printer
 * columns of the custom ones), `explain`, custom objects valid and invalid, `delete -f`.
 * metallb.yaml: CRDs with a conversion webhook no one serves and a validating webhook configuration;
 * external-secrets.yaml: 25 CRDs, two too large for client-side apply, with CEL rules;
 * longhorn.yaml: many built-in kinds (PriorityClass, NetworkPolicy, DaemonSet) and CRDs with many
 * printer columns, one of them named as a core resource (nodes.longhorn.io).
 */

const kapi = serverProcessForFile();
const dir = mkdtempSync(path.join(tmpdir(), 'kapi-bundles-'));
const k = (...args: string[]) => kubectl(kapi.url, args);

async function ok(...args: string[]): Promise<string> {
  const res = await k(...args);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

async function refused(manifest: string): Promise<string> {
  const res = await kubectl(kapi.url, ['create', '-f', '-'], manifest);
  expect(res.code).not.toBe(0);
  return res.stderr.trim();
}

/** Client-side apply, server-side apply over it (no conflicts), then both again writing nothing. */
async function applyTwiceBothWays(file: string): Promise<void> {
  await ok('apply', '-f', file);
  await ok('apply', '--server-side', '-f', file);
  const applied = await resourceVersions(k, file);
  expect(await ok('apply', '--server-side', '-f', file)).toMatch(/serverside-applied/);
  expect(await resourceVersions(k, file)).toEqual(applied);
  // kubectl writes its annotation once more after a server-side apply, then nothing.
  await ok('apply', '-f', file);
  const settled = await resourceVersions(k, file);
  await ok('apply', '-f', file);
  expect(await resourceVersions(k, file)).toEqual(settled);
}

/** Rows of a `kubectl get`, split on runs of two or more spaces (kubectl's column gap). */
const rows = (table: string): string[][] =>
  table
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

/** Deleted with everything in it: kubectl waits for the namespace and the CRDs' objects to go. */
async function deleteAll(file: string, crdKinds: string[]): Promise<void> {
  // The namespace controller may delete a namespaced object before kubectl gets to it.
  await ok('delete', '-f', file, '--ignore-not-found', '--timeout=50s');
  expect(await ok('get', '-f', file, '--ignore-not-found', '-o', 'name')).toBe('');
  for (const kind of crdKinds) expect((await k('get', kind, '-A')).code).not.toBe(0);
}

test("metallb's native manifest: CRDs with a conversion webhook, served at their storage version", async () => {
  const file = applicableBundle(dir, 'metallb.yaml');
  await applyTwiceBothWays(file);
  const kinds = (await ok('get', '-f', file, '-o', 'jsonpath={range .items[*]}{.kind}{"\\n"}{end}')).trim().split('\n');
  expect(new Set(kinds)).toEqual(
    new Set([
      'Namespace',
      'CustomResourceDefinition',
      'ServiceAccount',
      'Role',
      'ClusterRole',
      'RoleBinding',
      'ClusterRoleBinding',
      'ConfigMap',
      'Secret',
      'Service',
      'Deployment',
      'DaemonSet',
      'ValidatingWebhookConfiguration',
    ]),
  );
  const plurals = [
    'bfdprofiles',
    'bgpadvertisements',
    'bgppeers',
    'communities',
    'configurationstates',
    'ipaddresspools',
    'l2advertisements',
    'servicebgpstatuses',
    'servicel2statuses',
  ];
  for (const plural of plurals) await ok('get', `${plural}.metallb.io`, '-A');

  // BGPPeer is stored as v1beta2, its CRD's newest version: discovery prefers it, as kube's CRD discovery sorts a group's versions.
  const group = JSON.parse(await ok('get', '--raw', '/apis/metallb.io')) as { versions: { version: string }[]; preferredVersion: { version: string } };
  expect(group.versions.map((v) => v.version)).toEqual(['v1beta2', 'v1beta1']);
  expect(group.preferredVersion.version).toBe('v1beta2');
  expect(await ok('explain', 'bgppeers.spec.connectTime')).toMatch(/^GROUP:\s+metallb\.io\nKIND:\s+BGPPeer\nVERSION:\s+v1beta2\n/);

  const peer = (name: string, connectTime: string) =>
    `apiVersion: metallb.io/v1beta2\nkind: BGPPeer\nmetadata: {name: ${name}, namespace: metallb-system}\nspec: {myASN: 64500, peerASN: 64501, peerAddress: 10.0.0.1, connectTime: ${connectTime}}\n`;
  const pool = 'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: {name: pool, namespace: metallb-system}\nspec: {addresses: [192.168.10.0/24]}\n';
  // Its validating webhooks fail closed while metallb's controller is not running.
  expect(await refused(pool)).toBe(
    'Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "ipaddresspoolvalidationwebhook.metallb.io": failed to call webhook: ' +
      'Post "https://metallb-webhook-service.metallb-system.svc:443/validate-metallb-io-v1beta1-ipaddresspool?timeout=10s": no endpoints available for service "metallb-webhook-service"',
  );
  await ok('delete', 'validatingwebhookconfiguration', 'metallb-webhook-configuration');
  for (const manifest of [pool, peer('peer', '5s')]) expect((await kubectl(kapi.url, ['create', '-f', '-'], manifest)).code).toBe(0);
  expect(rows(await ok('get', 'ipaddresspools', '-n', 'metallb-system'))).toEqual([
    ['NAME', 'AUTO ASSIGN', 'AVOID BUGGY IPS', 'ADDRESSES'],
    ['pool', 'true', 'false', '["192.168.10.0/24"]'],
  ]);
  expect(rows(await ok('get', 'bgppeers', '-n', 'metallb-system'))).toEqual([
    ['NAME', 'ADDRESS', 'ASN', 'BFD PROFILE', 'MULTI HOPS'],
    ['peer', '10.0.0.1', '64501'],
  ]);
  // Another version needs the conversion webhook: kube's crConverter error, a 500 with no reason; v1beta1 is deprecated with a warning of its own.
  const converted = await k('get', 'bgppeers.v1beta1.metallb.io', 'peer', '-n', 'metallb-system');
  expect(converted.stderr.trim()).toBe(
    'Warning: v1beta1 is deprecated, please use v1beta2\n' +
      'Error from server: conversion webhook for metallb.io/v1beta2, Kind=BGPPeer failed: ' +
      'Post "https://metallb-webhook-service.metallb-system.svc:443/convert?timeout=30s": no endpoints available for service "metallb-webhook-service"',
  );
  expect(await refused(peer('bad', '1500ms'))).toBe(
    'The BGPPeer "bad" is invalid: spec.connectTime: Invalid value: "1500ms": connect time should contain a whole number of seconds',
  );

  await deleteAll(file, plurals);
}, 90_000);

test("external-secrets' CRD bundle: large CRDs with CEL rules, applied server-side whole", async () => {
  const whole = path.join(BUNDLES, 'external-secrets.yaml');
  const file = applicableBundle(dir, 'external-secrets.yaml');
  await applyTwiceBothWays(file);
  // The two CRDs too large for kubectl's annotation join by server-side apply, which keeps none.
  expect(Object.keys(await resourceVersions(k, file))).toHaveLength(23);
  await ok('apply', '--server-side', '-f', whole);
  const all = await resourceVersions(k, whole);
  expect(Object.keys(all)).toHaveLength(25);
  await ok('apply', '--server-side', '-f', whole);
  expect(await resourceVersions(k, whole)).toEqual(all);
  await ok('wait', '--for=condition=Established', '-f', whole, '--timeout=30s');

  expect(await ok('explain', 'externalsecrets.spec.target')).toMatch(
    /^GROUP:\s+external-secrets\.io\nKIND:\s+ExternalSecret\nVERSION:\s+v1\n\nFIELD: target <Object>\n[\s\S]*creationPolicy\t<string>\n  enum: Owner, Orphan, Merge, None, \.\.\.\.\n/,
  );
  const objects = `apiVersion: external-secrets.io/v1
kind: SecretStore
metadata: {name: fake, namespace: default}
spec:
  provider:
    fake:
      data: [{key: k, value: v}]
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: secret, namespace: default}
spec:
  secretStoreRef: {name: fake, kind: SecretStore}
  target: {name: out}
  data: [{secretKey: k, remoteRef: {key: k}}]
---
apiVersion: generators.external-secrets.io/v1alpha1
kind: Password
metadata: {name: pw, namespace: default}
spec: {length: 12, noUpper: false, allowRepeat: true}
`;
  const objectsFile = path.join(dir, 'external-secrets-objects.yaml');
  writeFileSync(objectsFile, objects);
  await ok('apply', '-f', objectsFile);
  const created = await resourceVersions(k, objectsFile);
  await ok('apply', '-f', objectsFile);
  expect(await resourceVersions(k, objectsFile)).toEqual(created);
  // Defaults from the schema, and printer columns reading them.
  expect(rows(await ok('get', 'externalsecrets', '-n', 'default'))).toEqual([
    ['NAME', 'STORETYPE', 'STORE', 'REFRESH INTERVAL', 'STATUS', 'READY', 'LAST SYNC'],
    ['secret', 'SecretStore', 'fake', '1h0m0s'],
  ]);
  expect(rows(await ok('get', 'secretstores', '-n', 'default', '-o', 'custom-columns=NAME:.metadata.name,READY:.status.conditions'))).toEqual([
    ['NAME', 'READY'],
    ['fake', '<none>'],
  ]);
  expect(JSON.parse(await ok('get', 'passwords', 'pw', '-n', 'default', '-o', 'json')).spec).toEqual({
    length: 12,
    noUpper: false,
    allowRepeat: true,
    encoding: 'raw',
  });

  expect(
    await refused(
      'apiVersion: external-secrets.io/v1\nkind: SecretStore\nmetadata: {name: bad, namespace: default}\nspec:\n  provider:\n    aws: {service: SecretsManager, region: eu-west-1, customSessionTags: {esoNamespace: x}}\n',
    ),
  ).toBe(
    'The SecretStore "bad" is invalid: spec.provider.aws.customSessionTags: Invalid value: customSessionTags cannot contain automatically injected reserved keys: esoNamespace, esoStoreName, esoStoreKind',
  );
  expect(
    await refused(
      'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: bad, namespace: default}\nspec:\n  target: {creationPolicy: Sometimes}\n',
    ),
  ).toBe(
    'The ExternalSecret "bad" is invalid: spec.target.creationPolicy: Unsupported value: "Sometimes": supported values: "Owner", "Orphan", "Merge", "None", "CreateOrMerge"',
  );

  await deleteAll(whole, ['secretstores.external-secrets.io', 'externalsecrets.external-secrets.io', 'passwords.generators.external-secrets.io']);
}, 90_000);

test("longhorn's deploy manifest: many kinds, printer columns of lists and maps, transition rules", async () => {
  const file = applicableBundle(dir, 'longhorn.yaml');
  await applyTwiceBothWays(file);
  const kinds = new Set((await ok('get', '-f', file, '-o', 'jsonpath={range .items[*]}{.kind}{"\\n"}{end}')).trim().split('\n'));
  expect(kinds).toEqual(
    new Set([
      'Namespace',
      'PriorityClass',
      'NetworkPolicy',
      'ServiceAccount',
      'ConfigMap',
      'CustomResourceDefinition',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Service',
      'DaemonSet',
      'Deployment',
    ]),
  );
  expect(rows(await ok('get', 'priorityclass', 'longhorn-critical'))).toEqual([
    ['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY'],
    ['longhorn-critical', '1000000000', 'false', expect.any(String), 'PreemptLowerPriority'],
  ]);
  // "nodes" stays the core resource; the CRD's is reached by its group.
  expect(await ok('get', 'nodes.longhorn.io', '-A')).toBe('');
  expect((await k('get', 'nodes')).stderr).toBe('No resources found\n');

  // The StorageClass longhorn-manager creates from its ConfigMap, the cluster's default.
  const configMap = JSON.parse(await ok('get', 'configmap', 'longhorn-storageclass', '-n', 'longhorn-system', '-o', 'json')) as {
    data: Record<string, string>;
  };
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], configMap.data['storageclass.yaml'])).stdout).toBe('storageclass.storage.k8s.io/longhorn created\n');
  expect(rows(await ok('get', 'storageclass', 'longhorn'))[1].slice(0, 5)).toEqual(['longhorn (default)', 'driver.longhorn.io', 'Delete', 'Immediate', 'true']);

  const objects = `apiVersion: longhorn.io/v1beta2
kind: RecurringJob
metadata: {name: nightly, namespace: longhorn-system}
spec: {cron: "0 0 * * *", task: snapshot, groups: [default, fast], retain: 3, concurrency: 2, labels: {tier: gold, app: db}}
---
apiVersion: longhorn.io/v1beta2
kind: Setting
metadata: {name: backup-target, namespace: longhorn-system}
value: "s3://bucket@us-east-1/"
---
apiVersion: longhorn.io/v1beta2
kind: Volume
metadata: {name: vol, namespace: longhorn-system}
spec: {size: "2147483648", numberOfReplicas: 3, dataEngine: v1, frontend: blockdev}
`;
  const objectsFile = path.join(dir, 'longhorn-objects.yaml');
  writeFileSync(objectsFile, objects);
  await ok('apply', '--server-side', '-f', objectsFile);
  const created = await resourceVersions(k, objectsFile);
  await ok('apply', '--server-side', '-f', objectsFile);
  expect(await resourceVersions(k, objectsFile)).toEqual(created);
  // A string column shows a list or a map as JSON (kube's CRD table convertor prints them with jsonpath), the schema's default filled in.
  expect(rows(await ok('get', 'lhrj', '-n', 'longhorn-system'))).toEqual([
    ['NAME', 'GROUPS', 'TASK', 'CRON', 'RETENTIONPOLICY', 'RETAINCOUNT', 'RETAINAGE', 'CONCURRENCY', 'AGE', 'LABELS'],
    ['nightly', '["default","fast"]', 'snapshot', '0 0 * * *', 'count-based', '3', '2', expect.any(String), '{"app":"db","tier":"gold"}'],
  ]);
  expect(rows(await ok('get', 'settings.longhorn.io', '-n', 'longhorn-system'))).toEqual([
    ['NAME', 'VALUE', 'APPLIED', 'AGE'],
    ['backup-target', 's3://bucket@us-east-1/', expect.any(String)],
  ]);
  // A priority-1 column only in the wide output.
  expect(rows(await ok('get', 'volumes.longhorn.io', '-n', 'longhorn-system'))[0]).not.toContain('SWITCHOVER');
  expect(rows(await ok('get', 'volumes.longhorn.io', '-n', 'longhorn-system', '-o', 'wide'))[0]).toEqual([
    'NAME',
    'DATA ENGINE',
    'STATE',
    'ROBUSTNESS',
    'SCHEDULED',
    'SIZE',
    'NODE',
    'SWITCHOVER',
    'AGE',
  ]);
  expect(await ok('explain', 'volumes.spec.accessMode')).toMatch(
    /^GROUP:\s+longhorn\.io\nKIND:\s+Volume\nVERSION:\s+v1beta2\n\nFIELD: accessMode <string>\nENUM:\n    rwo\n    rwop\n    rwx\n/,
  );

  expect(
    await refused(
      'apiVersion: longhorn.io/v1beta2\nkind: RecurringJob\nmetadata: {name: bad, namespace: longhorn-system}\nspec: {cron: "* * * * *", task: backup, retainAge: "-1h", retentionPolicy: age-based}\n',
    ),
  ).toBe('The RecurringJob "bad" is invalid: spec.retainAge: Invalid value: "-1h": retainAge must be a positive duration');
  // A transition rule (self == oldSelf) holds once the field has an old value.
  await ok('patch', 'volume.longhorn.io', 'vol', '-n', 'longhorn-system', '--type=merge', '-p', '{"spec":{"backingImage":"one"}}');
  const changed = await k('patch', 'volume.longhorn.io', 'vol', '-n', 'longhorn-system', '--type=merge', '-p', '{"spec":{"backingImage":"two"}}');
  expect(changed.stderr.trim()).toBe('The Volume "vol" is invalid: spec.backingImage: Invalid value: "two": BackingImage is immutable');

  await ok('delete', 'storageclass', 'longhorn');
  await deleteAll(file, ['recurringjobs.longhorn.io', 'settings.longhorn.io', 'volumes.longhorn.io']);
}, 90_000);
