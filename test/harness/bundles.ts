import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import type { CommandResult } from './process';

/** Operators' install bundles kept as test fixtures (test/fixtures/bundles/README.md names their sources). */
export const BUNDLES = path.join(__dirname, '../fixtures/bundles');

/** kubectl's client-side apply cannot keep these in the last-applied annotation (256 KiB at most): kube-apiserver refuses them too. */
const ANNOTATION_LIMIT = 262144;

/** A bundle rewritten into dir without the objects client-side apply cannot keep an annotation for. */
export function applicableBundle(dir: string, name: string): string {
  const docs = yaml
    .loadAll(readFileSync(path.join(BUNDLES, name), 'utf8'))
    .filter((d): d is { kind: string } => !!d && JSON.stringify(d).length < ANNOTATION_LIMIT);
  const file = path.join(dir, name);
  writeFileSync(file, docs.map((d) => yaml.dump(d, { lineWidth: -1 })).join('---\n'));
  return file;
}

type Kubectl = (...args: string[]) => Promise<CommandResult>;

/** Every object of a file: kind/namespace/name to its resourceVersion. */
export async function resourceVersions(k: Kubectl, file: string, ns: string[] = []): Promise<Record<string, string>> {
  const res = await k(
    'get',
    '-f',
    file,
    ...ns,
    '--no-headers',
    '-o',
    'custom-columns=K:.kind,NS:.metadata.namespace,N:.metadata.name,RV:.metadata.resourceVersion',
  );
  if (res.code !== 0 || res.stderr !== '') throw new Error(`kubectl get -f ${file}: ${res.stderr}`);
  return Object.fromEntries(
    res.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/))
      .map(([kind, namespace, name, rv]) => [`${kind}/${namespace}/${name}`, rv]),
  );
}
