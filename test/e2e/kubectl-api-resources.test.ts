import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../harness/etcd-keys';
import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/**
 * `kubectl api-resources -o wide` against kapi, compared with kube-apiserver 1.34's default table
 * (test/fixtures/api-resources-1.34.txt, written from kube-apiserver 1.34's documented output in
 * kubectl's own format: a real cluster's output can be pasted over it). Every resource, with its
 * short names, apiVersion, scope, kind, verbs and categories.
 */

interface Row {
  name: string;
  shortNames: string;
  apiVersion: string;
  namespaced: string;
  kind: string;
  verbs: string;
  categories: string;
}

/** Reads kubectl's aligned table by the header's column offsets (a cell may be empty). */
function parseTable(text: string): Map<string, Row> {
  const [header, ...lines] = text.split('\n').filter((l) => l.trim() !== '');
  const names = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES'];
  const starts = names.map((n) => header.search(new RegExp(`\\b${n}\\b`)));
  if (starts.some((s) => s < 0)) throw new Error(`unexpected header: ${header}`);
  const rows = new Map<string, Row>();
  for (const line of lines) {
    const cell = (i: number) => line.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim();
    const row = {
      name: cell(0),
      shortNames: cell(1),
      apiVersion: cell(2),
      namespaced: cell(3),
      kind: cell(4),
      verbs: cell(5).split(',').sort().join(','),
      categories: cell(6),
    };
    const group = row.apiVersion.includes('/') ? row.apiVersion.split('/')[0] : '';
    rows.set(group ? `${row.name}.${group}` : row.name, row);
  }
  return rows;
}

let kapi: ServerProcess;

beforeAll(async () => {
  kapi = await startServerProcess();
});

afterAll(async () => {
  await kapi.stop();
});

test('kubectl api-resources -o wide lists what kube-apiserver 1.34 lists by default, the same way', async () => {
  const expected = parseTable(readFileSync(path.join(__dirname, '../fixtures/api-resources-1.34.txt'), 'utf8'));
  const res = await kubectl(kapi.url, ['api-resources', '-o', 'wide']);
  expect(res.code).toBe(0);
  const actual = parseTable(res.stdout);

  const differences: string[] = [];
  for (const [key, want] of expected) {
    const got = actual.get(key);
    if (!got) {
      differences.push(`missing: ${key}`);
      continue;
    }
    for (const field of Object.keys(want) as (keyof Row)[]) {
      if (got[field] !== want[field]) differences.push(`${key}: ${field} is "${got[field]}", kube-apiserver has "${want[field]}"`);
    }
  }
  for (const key of actual.keys()) if (!expected.has(key)) differences.push(`not in kube-apiserver's default table: ${key}`);
  expect(differences).toEqual([]);
});

test("kubectl get flowschemas and prioritylevelconfigurations print kube's columns, the bootstrap objects in precedence order", async () => {
  // The configuration producer creates them just after start.
  const fs = await eventually('the bootstrap flow schemas', async () => {
    const r = await kubectl(kapi.url, ['get', 'flowschemas']);
    return r.code === 0 && r.stdout.includes('global-default') ? r : undefined;
  });
  const [header, first, second] = fs.stdout.split('\n');
  expect(header.split(/\s+/)).toEqual(['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
  expect(first.split(/\s+/).slice(0, 4)).toEqual(['exempt', 'exempt', '1', '<none>']);
  expect(second.split(/\s+/).slice(0, 4)).toEqual(['probes', 'exempt', '2', '<none>']);
  const pl = await kubectl(kapi.url, ['get', 'prioritylevelconfigurations', 'workload-high']);
  expect(pl.code).toBe(0);
  const [plHeader, row] = pl.stdout.split('\n');
  expect(plHeader.split(/\s+/)).toEqual(['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
  expect(row.split(/\s+/).slice(0, 6)).toEqual(['workload-high', 'Limited', '40', '128', '6', '50']);
});
