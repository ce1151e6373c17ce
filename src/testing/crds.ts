import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadAll } from 'js-yaml';

export interface CustomResourceDefinitionDocument {
  apiVersion: string;
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  [field: string]: unknown;
}

const MANIFEST = /\.(ya?ml|json)$/;

/** The files behind `crds`: a directory's YAML and JSON files (not recursive, sorted), or the files given. */
function manifestFiles(crds: string | string[]): string[] {
  const entries = typeof crds === 'string' ? [crds] : crds;
  return entries.flatMap((entry) =>
    statSync(entry).isDirectory()
      ? readdirSync(entry)
          .filter((f) => MANIFEST.test(f))
          .sort()
          .map((f) => path.join(entry, f))
      : [entry],
  );
}

/** Every CustomResourceDefinition in the given manifests; multi-document YAML and `List`s are unfolded. */
export function loadCrds(crds: string | string[]): CustomResourceDefinitionDocument[] {
  const out: CustomResourceDefinitionDocument[] = [];
  for (const file of manifestFiles(crds)) {
    const docs = loadAll(readFileSync(file, 'utf8')) as unknown[];
    const objects = docs.flatMap((doc) => {
      const obj = doc as { kind?: string; items?: unknown[] } | null;
      return obj?.kind?.endsWith('List') && Array.isArray(obj.items) ? obj.items : [doc];
    });
    for (const obj of objects) {
      if (obj === null || obj === undefined) continue;
      const crd = obj as Partial<CustomResourceDefinitionDocument>;
      if (crd.kind !== 'CustomResourceDefinition' || typeof crd.metadata?.name !== 'string') {
        throw new Error(`startKapi: ${file} holds a ${String(crd.kind)} where only CustomResourceDefinitions are expected`);
      }
      out.push(crd as CustomResourceDefinitionDocument);
    }
  }
  return out;
}
