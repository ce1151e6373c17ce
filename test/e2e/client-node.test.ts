import { execFile } from 'node:child_process';
import path from 'node:path';
import { serverProcessForFile } from '../harness/process';

const kapi = serverProcessForFile();

function runFlow(): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'client-node-flow.mjs'), kapi.url], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`client-node flow failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

test('@kubernetes/client-node: create, read, list, replace with conflict, delete; a CRD and its custom objects', async () => {
  const report = await runFlow();
  expect(report.created.name).toBe('settings');
  expect(report.read).toEqual({ data: { mode: 'fast' }, resourceVersion: report.created.resourceVersion });
  expect(report.list.kind).toBe('ConfigMapList');
  expect(report.list.names).toEqual(['settings']);
  expect(Number(report.list.resourceVersion)).toBeGreaterThanOrEqual(Number(report.created.resourceVersion));
  expect(report.replaced.data).toEqual({ mode: 'safe' });
  expect(Number(report.replaced.resourceVersion)).toBeGreaterThan(Number(report.created.resourceVersion));
  expect(report.conflict.code).toBe(409);
  expect(report.conflict.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
  expect(report.duplicate.code).toBe(409);
  expect(report.duplicate.body.reason).toBe('AlreadyExists');
  expect(report.deployment).toEqual({ generation: 1, replicas: 2, strategy: 'RollingUpdate' });
  expect(report.afterDelete.code).toBe(404);
  expect(report.afterDelete.body.reason).toBe('NotFound');
  expect(report.custom).toMatchObject({ level: 1, listed: ['g1'], listKind: 'GadgetList', invalid: { code: 422, body: { reason: 'Invalid' } } });
});
