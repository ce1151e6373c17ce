/**
 * The TypeScript interfaces of the API's Go types, rendered from the generated field facts: one
 * module per proto package under src/generated/types/ (k8s.io.api.apps.v1 -> apps/v1.ts,
 * k8s.io.apimachinery.pkg.apis.meta.v1 -> meta/v1.ts), one interface per message named as Go
 * names the type, fields by JSON name, each optional (the wire may leave any out). A message
 * with `metadata: ObjectMeta` is a kind: it extends KubeObject, whose `metadata` is always there.
 * An inlined struct is an `extends`. The apimachinery types with a JSON form of their own
 * (Quantity, Time, IntOrString, RawExtension, ...) are aliases of that form.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the renderer reads of a field's facts (scripts/gen-api-facts.ts FieldFact, src/schema/field-facts.ts). */
export interface TypeFacts {
  type: string;
  repeated?: true;
  keyType?: string;
  inline?: true;
  enum?: string[];
}

const OBJECT_META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** Messages whose JSON is not an object of their fields (custom marshallers in apimachinery). */
const JSON_FORMS: Record<string, string> = {
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'string',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'string',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'string',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'string',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'Record<string, unknown>',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'number | string',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'Record<string, unknown>',
};

const SCALARS: Record<string, string> = {
  string: 'string',
  bytes: 'string',
  bool: 'boolean',
  int32: 'number',
  int64: 'number',
  uint32: 'number',
  uint64: 'number',
  double: 'number',
  float: 'number',
};

/** k8s.io.api.apps.v1 -> apps/v1; k8s.io.apimachinery.pkg.apis.meta.v1 -> meta/v1; k8s.io.apimachinery.pkg.api.resource -> api/resource. */
export function modulePathOf(pkg: string): string {
  const rest = pkg
    .replace(/^k8s\.io\.api\./, '')
    .replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, '')
    .replace(/^k8s\.io\.apimachinery\.pkg\./, '');
  return rest
    .replace(/^k8s\.io\.kube_aggregator\.pkg\.apis\./, '')
    .split('.')
    .join('/');
}

/** The import alias of a module: apps/v1 -> appsV1, api/resource -> apiResource. */
const aliasOf = (modulePath: string): string =>
  modulePath
    .split(/[/_-]/)
    .map((part, i) => (i === 0 ? part : part[0].toUpperCase() + part.slice(1)))
    .join('');

const packageOf = (message: string): string => message.slice(0, message.lastIndexOf('.'));
const nameOf = (message: string): string => message.slice(message.lastIndexOf('.') + 1);
const property = (name: string): string => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `'${name}'`);

/** The modules' texts, by path relative to src/generated/types (with .ts). */
export function renderApiTypes(release: string, facts: Record<string, Record<string, TypeFacts>>, stringLists: string[] = []): Map<string, string> {
  const jsonForms: Record<string, string> = { ...JSON_FORMS, ...Object.fromEntries(stringLists.map((m) => [m, 'string[]'])) };
  const packages = new Map<string, string[]>();
  for (const message of Object.keys(facts).sort()) {
    const pkg = packageOf(message);
    if (!packages.has(pkg)) packages.set(pkg, []);
    packages.get(pkg)!.push(message);
  }
  for (const message of Object.keys(jsonForms)) {
    const pkg = packageOf(message);
    if (!packages.has(pkg)) packages.set(pkg, []);
    if (!packages.get(pkg)!.includes(message)) packages.get(pkg)!.push(message);
  }
  const out = new Map<string, string>();
  for (const [pkg, messages] of packages) {
    const modulePath = modulePathOf(pkg);
    const imports = new Set<string>();
    let importsKubeObject = false;
    const ref = (message: string): string => {
      const owner = packageOf(message);
      if (owner === pkg) return nameOf(message);
      imports.add(owner);
      return `${aliasOf(modulePathOf(owner))}.${nameOf(message)}`;
    };
    const typeOf = (f: TypeFacts): string => {
      const item = f.enum ? f.enum.map((v) => `'${v}'`).join(' | ') : (SCALARS[f.type] ?? ref(f.type));
      if (f.keyType) return `Record<string, ${item}>`;
      if (f.repeated) return f.enum && f.enum.length > 1 ? `(${item})[]` : `${item}[]`;
      return item;
    };
    const body: string[] = [];
    for (const message of messages.sort()) {
      const name = nameOf(message);
      const form = jsonForms[message];
      if (form) {
        body.push(`export type ${name} = ${form};`, '');
        continue;
      }
      const fields = Object.entries(facts[message] ?? {});
      const isKind = fields.some(([field, f]) => field === 'metadata' && f.type === OBJECT_META);
      const bases = fields.filter(([, f]) => f.inline).map(([, f]) => ref(f.type));
      if (isKind) {
        bases.unshift('KubeObject');
        importsKubeObject = true;
      }
      const members = fields.filter(([field, f]) => !f.inline && !(isKind && field === 'metadata'));
      const head = `export interface ${name}${bases.length > 0 ? ` extends ${bases.join(', ')}` : ''}`;
      if (members.length === 0) {
        body.push(`${head} {}`, '');
        continue;
      }
      body.push(`${head} {`);
      for (const [field, f] of members) body.push(`  ${property(field)}?: ${typeOf(f)};`);
      body.push('}', '');
    }
    const depth = modulePath.split('/').length;
    const up = '../'.repeat(depth);
    const lines = [`// Generated by scripts/api-types.ts from ${release}. Do not edit: run \`npm run gen:api-facts\` (or \`npm run gen:api-types\`).`];
    if (importsKubeObject) lines.push(`import type { KubeObject } from '${up}../api/types';`);
    for (const owner of [...imports].sort()) {
      const target = modulePathOf(owner);
      let relative = path.posix.relative(path.posix.dirname(modulePath), target);
      if (!relative.startsWith('.')) relative = `./${relative}`;
      lines.push(`import type * as ${aliasOf(target)} from '${relative}';`);
    }
    lines.push('', ...body);
    out.set(`${modulePath}.ts`, `${lines.join('\n').trimEnd()}\n`);
  }
  return out;
}

/** Replaces src/generated/types with the modules of these facts. */
export function writeApiTypes(root: string, release: string, facts: Record<string, Record<string, TypeFacts>>, stringLists: string[]): void {
  const dir = path.join(root, 'src/generated/types');
  rmSync(dir, { recursive: true, force: true });
  for (const [file, text] of renderApiTypes(release, facts, stringLists)) {
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}
