/**
 * Generates kapi's API facts from one pinned Kubernetes release, offline:
 *
 *   npm run gen:api-facts -- --api <k8s.io/api> --apimachinery <k8s.io/apimachinery> [--aggregator <k8s.io/kube-aggregator>] [--tag v0.36.3]
 *     [--aggregator-tag v0.36.2]
 *
 * k8s.io/kube-aggregator (optional, at the same tag, or at --aggregator-tag when its repository lags a
 * patch release behind) adds apiregistration.k8s.io/v1, the APIService kinds kube-aggregator serves. Each source is either a bare git directory (as the kubernetes/api and kubernetes/apimachinery
 * repositories are cloned or mirrored; files are read at the tag with `git show`) or a tree
 * extracted at that tag (then --tag only names the release). It reads every `generated.proto`
 * (field names, numbers, wire types) and the Go files beside it (json tags: omitempty, omitzero,
 * inline; pointers; patchStrategy/patchMergeKey tags; the +listType, +listMapKey, +mapType,
 * +structType, +optional, +required, +default and +enum markers, and the enum values from the
 * package's typed constants) and writes:
 *
 *   src/generated/api-facts.ts   the facts, keyed by proto message and JSON field name
 *   src/generated/types/**       the TypeScript interfaces of those messages (scripts/api-types.ts)
 *   proto/k8s.io/**\/generated.proto   the wire schema kapi loads, rebuilt from those facts
 *
 * Upgrading to another release: change PINNED_TAG, run this, review the diff.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse, type MapField, type Namespace, type Type } from 'protobufjs';
import { writeApiTypes } from './api-types';

/** The release kapi's API facts come from: a tag of k8s.io/api, k8s.io/apimachinery and k8s.io/kube-aggregator (v0.X.Y is Kubernetes v1.X.Y). */
const PINNED_TAG = 'v0.36.3';

interface Source {
  /** Go module path: k8s.io/api, k8s.io/apimachinery or k8s.io/kube-aggregator. */
  module: string;
  list(): string[];
  read(file: string): string;
  readBytes(file: string): Buffer;
}

function source(module: string, location: string, tag: string): Source {
  const bare = existsSync(path.join(location, 'HEAD')) && existsSync(path.join(location, 'objects'));
  if (bare) {
    const git = (...args: string[]): string => execFileSync('git', [`--git-dir=${location}`, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
    return {
      module,
      list: () => git('ls-tree', '-r', '--name-only', tag).split('\n').filter(Boolean),
      read: (f) => git('show', `${tag}:${f}`),
      readBytes: (f) => execFileSync('git', [`--git-dir=${location}`, 'show', `${tag}:${f}`], { maxBuffer: 1 << 30 }),
    };
  }
  const walk = (dir: string): string[] =>
    readdirSync(path.join(location, dir)).flatMap((name) => {
      const rel = dir ? `${dir}/${name}` : name;
      return statSync(path.join(location, rel)).isDirectory() ? (name === '.git' ? [] : walk(rel)) : [rel];
    });
  return { module, list: () => walk(''), read: (f) => readFileSync(path.join(location, f), 'utf8'), readBytes: (f) => readFileSync(path.join(location, f)) };
}

// ---------------------------------------------------------------- Go sources

interface GoField {
  goName: string;
  goType: string;
  json: string;
  omitempty: boolean;
  omitzero: boolean;
  inline: boolean;
  protoName: string | null;
  patchStrategy?: string;
  patchMergeKey?: string;
  markers: Map<string, string[]>;
}

interface GoType {
  name: string;
  /** 'struct', or the underlying Go type of a named non-struct type ("string", "[]string", "map[..]..."). */
  underlying: string;
  fields: GoField[];
  markers: Map<string, string[]>;
}

interface GoPackage {
  path: string;
  groupName: string | null;
  types: Map<string, GoType>;
  /** import alias -> package path, per file, merged (Kubernetes uses the same aliases across a package). */
  imports: Map<string, string>;
  /** Typed constants by type: their values, or another package's constant they convert. */
  consts: Map<string, (string | { ref: string })[]>;
  constValues: Map<string, string>;
}

function markersOf(lines: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of lines) {
    const m = /^\s*\/\/\s*\+([A-Za-z0-9:._-]+)(?:=(.*))?$/.exec(line);
    if (!m) continue;
    const list = out.get(m[1]) ?? [];
    list.push((m[2] ?? '').trim());
    out.set(m[1], list);
  }
  return out;
}

function tagValue(tags: string, key: string): string | null {
  const m = new RegExp(`(?:^|\\s)${key}:"([^"]*)"`).exec(tags);
  return m ? m[1] : null;
}

function parseGoFile(text: string, pkg: GoPackage): void {
  const lines = text.split('\n');
  let comments: string[] = [];
  let previousBlock: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*\/\//.test(line)) {
      comments.push(line);
      continue;
    }
    if (line.trim() === '') {
      if (comments.length > 0) previousBlock = comments;
      comments = [];
      continue;
    }
    const imp = /^\s*(?:import\s+)?([A-Za-z0-9_]+)\s+"([^"]+)"\s*$/.exec(line);
    if (imp) pkg.imports.set(imp[1], imp[2]);
    const plainImp = /^\s*(?:import\s+)?"([^"]+)"\s*$/.exec(line);
    if (plainImp) pkg.imports.set(plainImp[1].split('/').pop()!, plainImp[1]);
    const typeDecl = /^type\s+([A-Za-z0-9_]+)\s+(.+?)\s*$/.exec(line);
    if (typeDecl) {
      const markers = markersOf([...previousBlock, ...comments]);
      const [, name, rest] = typeDecl;
      if (rest === 'struct {') {
        const fields: GoField[] = [];
        let fieldComments: string[] = [];
        for (i++; i < lines.length && lines[i] !== '}'; i++) {
          const fl = lines[i];
          if (/^\s*\/\//.test(fl)) {
            fieldComments.push(fl);
            continue;
          }
          if (fl.trim() === '') {
            fieldComments = [];
            continue;
          }
          const field = parseGoField(fl, fieldComments);
          if (field) fields.push(field);
          fieldComments = [];
        }
        pkg.types.set(name, { name, underlying: 'struct', fields, markers });
      } else if (!rest.startsWith('interface') && !rest.startsWith('=')) {
        pkg.types.set(name, { name, underlying: rest.replace(/\s*\{\s*\}$/, ''), fields: [], markers });
      }
      comments = [];
      previousBlock = [];
      continue;
    }
    // Typed string constants: `Name Type = "value"`, `Name = Type("value")` or `Name = Type(pkg.Other)`.
    const constLine =
      /^\s*(?:const\s+)?([A-Z][A-Za-z0-9_]*)\s+([A-Za-z0-9_.]+)\s*=\s*"([^"]*)"/.exec(line) ??
      /^\s*(?:const\s+)?([A-Z][A-Za-z0-9_]*)\s*=\s*([A-Za-z0-9_.]+)\("([^"]*)"\)/.exec(line);
    const constRef = /^\s*(?:const\s+)?([A-Z][A-Za-z0-9_]*)\s*=\s*([A-Za-z0-9_.]+)\(([A-Za-z0-9_]+\.[A-Za-z0-9_]+)\)\s*$/.exec(line);
    if (constLine || constRef) {
      const [, name, type, value] = (constLine ?? constRef)!;
      const values = pkg.consts.get(type) ?? [];
      values.push(constLine ? value : { ref: value });
      pkg.consts.set(type, values);
      if (constLine) pkg.constValues.set(name, value);
    }
    comments = [];
    previousBlock = [];
  }
}

function parseGoField(line: string, comments: string[]): GoField | null {
  const m = /^\s*(?:([A-Za-z0-9_]+)\s+)?([*\[\]A-Za-z0-9_.]+(?:\[[^\]]*\][*A-Za-z0-9_.]+)?)\s+`([^`]*)`/.exec(line);
  if (!m) return null;
  const [, name, goType, tags] = m;
  const json = tagValue(tags, 'json');
  if (json === null || json === '-') return null;
  const [jsonName, ...opts] = json.split(',');
  const proto = tagValue(tags, 'protobuf');
  const goName = name ?? goType.replace(/^\*/, '').split('.').pop()!;
  // An embedded struct's protobuf tag may leave the name out: go-to-protobuf then names the field after the type.
  const protoName = proto && proto !== '-' ? (/name=([A-Za-z0-9_]+)/.exec(proto)?.[1] ?? goName[0].toLowerCase() + goName.slice(1)) : null;
  const field: GoField = {
    goName,
    goType,
    json: jsonName,
    omitempty: opts.includes('omitempty'),
    omitzero: opts.includes('omitzero'),
    inline: opts.includes('inline'),
    protoName,
    markers: markersOf(comments),
  };
  const ps = tagValue(tags, 'patchStrategy');
  const pk = tagValue(tags, 'patchMergeKey');
  if (ps) field.patchStrategy = ps;
  if (pk) field.patchMergeKey = pk;
  return field;
}

function readGoPackage(src: Source, dir: string, files: string[]): GoPackage {
  const pkg: GoPackage = { path: `${src.module}/${dir}`, groupName: null, types: new Map(), imports: new Map(), consts: new Map(), constValues: new Map() };
  for (const f of files) {
    const base = f.slice(dir.length + 1);
    if (
      base.includes('/') ||
      !base.endsWith('.go') ||
      base.endsWith('_test.go') ||
      base.startsWith('zz_generated') ||
      base.endsWith('.pb.go') ||
      base.includes('fuzz')
    )
      continue;
    const text = src.read(f);
    // The group is doc.go's +groupName marker, or register.go's GroupName constant.
    const group = /^\/\/ \+groupName=(.*)$/m.exec(text) ?? /^\s*(?:const\s+)?GroupName\s*=\s*"([^"]*)"/m.exec(text);
    if (group && pkg.groupName === null) pkg.groupName = group[1].trim();
    parseGoFile(text, pkg);
  }
  return pkg;
}

// ---------------------------------------------------------------- facts

/** Everything kapi knows about one field: the wire (number, type) and the Go type's JSON rules and markers. */
interface FieldFact {
  number: number;
  /** Scalar proto type, or a message's full name. */
  type: string;
  repeated?: true;
  /** map<keyType, type>. */
  keyType?: string;
  /** Go pointer: absent when nil, its zero written when set. */
  pointer?: true;
  omitempty?: true;
  omitzero?: true;
  /** An embedded Go struct (`json:",inline"`): its fields sit in the embedding object's JSON. */
  inline?: true;
  /** Go's zero value of this type is nil (slice, map, pointer): written as null without omitempty. */
  nilable?: true;
  required?: true;
  patchStrategy?: string;
  patchMergeKey?: string;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
  structType?: 'atomic' | 'granular';
  enum?: string[];
  /** +default, as JSON (ref(...) defaults kept as their text). */
  default?: unknown;
}

const SCALAR_PROTO = new Set(['string', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'double', 'float', 'bytes', 'fixed32', 'fixed64']);

function main(): void {
  const args = new Map<string, string>();
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) args.set(argv[i].replace(/^--/, ''), argv[i + 1]);
  const tag = args.get('tag') ?? PINNED_TAG;
  const apiDir = args.get('api');
  const machineryDir = args.get('apimachinery');
  const aggregatorDir = args.get('aggregator');
  const aggregatorTag = args.get('aggregator-tag') ?? tag;
  const root = path.resolve(args.get('out') ?? path.join(__dirname, '..'));
  if (!tag || !apiDir || !machineryDir) {
    console.error(
      `usage: gen-api-facts --api <dir|git-dir> --apimachinery <dir|git-dir> [--aggregator <dir|git-dir>] [--tag ${PINNED_TAG}] [--aggregator-tag <tag>] [--out <repo root>]`,
    );
    process.exit(2);
  }
  const sources = [
    source('k8s.io/api', apiDir, tag),
    source('k8s.io/apimachinery', machineryDir, tag),
    ...(aggregatorDir ? [source('k8s.io/kube-aggregator', aggregatorDir, aggregatorTag)] : []),
  ];
  /** Of modules other than k8s.io/api, the packages kapi takes (kube-aggregator: only the version it serves). */
  const onlyPackages: Record<string, Set<string>> = {
    'k8s.io/apimachinery': new Set(['pkg/apis/meta/v1', 'pkg/runtime', 'pkg/runtime/schema', 'pkg/util/intstr', 'pkg/api/resource']),
    'k8s.io/kube-aggregator': new Set(['pkg/apis/apiregistration/v1']),
  };

  interface ProtoPackage {
    protoFile: string;
    goPackage: GoPackage;
    messages: Type[];
  }
  const protoPackages: ProtoPackage[] = [];
  const goPackages = new Map<string, GoPackage>();
  for (const src of sources) {
    const files = src.list();
    for (const f of files.filter((x) => x.endsWith('/generated.proto'))) {
      const dir = f.slice(0, -'/generated.proto'.length);
      if (onlyPackages[src.module] && !onlyPackages[src.module].has(dir)) continue;
      if (dir.includes('testdata')) continue;
      const goPackage = readGoPackage(
        src,
        dir,
        files.filter((x) => x.startsWith(`${dir}/`)),
      );
      goPackages.set(goPackage.path, goPackage);
      const parsed = parse(src.read(f), { keepCase: true });
      const ns = parsed.root.lookup(parsed.package!) as Namespace;
      const messages = ns.nestedArray.filter((n): n is Type => 'fieldsArray' in n);
      protoPackages.push({ protoFile: `${src.module}/${dir}/generated.proto`, goPackage, messages });
      if (ns.nestedArray.some((n) => 'values' in n && !('fieldsArray' in n))) throw new Error(`${f}: proto enums are not expected`);
    }
  }

  // go-to-protobuf's package name: the Go path's slashes as dots, its dashes as underscores (k8s.io.kube_aggregator...).
  const protoPackageOf = (goPath: string): string => goPath.replace(/\//g, '.').replace(/-/g, '_');

  /** The Go type a field's type names: its package and declaration. */
  const resolveGoType = (pkg: GoPackage, goType: string): { pkg: GoPackage; type: GoType } | null => {
    const bare = goType.replace(/^[*]|^\[\]|^map\[[^\]]+\]/g, '').replace(/^\*/, '');
    const dot = bare.indexOf('.');
    const owner = dot < 0 ? pkg : goPackages.get(pkg.imports.get(bare.slice(0, dot)) ?? '');
    const name = dot < 0 ? bare : bare.slice(dot + 1);
    const type = owner?.types.get(name);
    return owner && type ? { pkg: owner, type } : null;
  };

  const enumValues = (pkg: GoPackage, goType: string): string[] | undefined => {
    const resolved = resolveGoType(pkg, goType);
    if (!resolved || !resolved.type.markers.has('enum')) return undefined;
    const values = [
      ...new Set(
        (resolved.pkg.consts.get(resolved.type.name) ?? []).map((v) => {
          if (typeof v === 'string') return v;
          const [alias, name] = v.ref.split('.');
          const value = goPackages.get(resolved.pkg.imports.get(alias) ?? '')?.constValues.get(name);
          if (value === undefined) throw new Error(`${resolved.pkg.path}.${resolved.type.name}: cannot resolve ${v.ref}`);
          return value;
        }),
      ),
    ];
    if (values.length === 0) throw new Error(`${resolved.pkg.path}.${resolved.type.name} is +enum but has no constants`);
    return values;
  };

  const facts: Record<string, Record<string, FieldFact>> = {};
  const warnings: string[] = [];
  /**
   * Messages whose Go type is a named []string (ExtraValue, Verbs): on the wire a message of
   * `repeated string items = 1`, in JSON the list itself.
   */
  const sliceMessages: string[] = [];
  for (const p of protoPackages) {
    for (const msg of p.messages) {
      const goType = p.goPackage.types.get(msg.name);
      if (!goType || !/^\[\]|^map\[/.test(goType.underlying)) continue;
      const full = `${protoPackageOf(p.goPackage.path)}.${msg.name}`;
      const items = msg.fieldsArray;
      if (goType.underlying !== '[]string' || items.length !== 1 || items[0].name !== 'items' || items[0].type !== 'string' || !items[0].repeated) {
        throw new Error(`${full}: a Go ${goType.underlying} kapi has no JSON form for`);
      }
      sliceMessages.push(full);
      facts[full] = { items: { number: items[0].id, type: 'string', repeated: true } };
    }
  }

  for (const p of protoPackages) {
    const pkgName = protoPackageOf(p.goPackage.path);
    for (const msg of p.messages) {
      const full = `${pkgName}.${msg.name}`;
      if (sliceMessages.includes(full)) continue;
      const goType = p.goPackage.types.get(msg.name);
      const out: Record<string, FieldFact> = {};
      const byProtoName = new Map(msg.fieldsArray.map((f) => [f.name, f]));
      const goFields = goType?.fields ?? [];
      const seen = new Set<string>();
      const ordered = [
        ...goFields.filter((g) => g.protoName && byProtoName.has(g.protoName)).map((g) => ({ g, f: byProtoName.get(g.protoName!)! })),
        ...msg.fieldsArray.filter((f) => !goFields.some((g) => g.protoName === f.name)).map((f) => ({ g: null as GoField | null, f })),
      ];
      for (const { g, f } of ordered) {
        seen.add(f.name);
        const typeName = SCALAR_PROTO.has(f.type) ? f.type : qualify(f.type, pkgName);
        const inline = g?.inline ?? false;
        const name = inline ? f.name : (g?.json ?? f.name);
        const fact: FieldFact = { number: f.id, type: typeName };
        if (f.repeated) fact.repeated = true;
        if ((f as unknown as Partial<MapField>).keyType) fact.keyType = (f as unknown as Partial<MapField>).keyType;
        if (g) {
          const resolved = resolveGoType(p.goPackage, g.goType);
          const underlying = resolved && resolved.type.underlying !== 'struct' ? resolved.type.underlying : '';
          if (g.goType.startsWith('*')) fact.pointer = true;
          if (g.omitempty) fact.omitempty = true;
          if (g.omitzero) fact.omitzero = true;
          if (inline) fact.inline = true;
          if (/^\*|^\[\]|^map\[/.test(g.goType) || /^\[\]|^map\[/.test(underlying)) fact.nilable = true;
          const optional = g.markers.has('optional') || g.markers.has('k8s:optional') || g.omitempty;
          if (!inline && (!optional || g.markers.has('required') || g.markers.has('k8s:required'))) fact.required = true;
          if (g.patchStrategy) fact.patchStrategy = g.patchStrategy;
          if (g.patchMergeKey) fact.patchMergeKey = g.patchMergeKey;
          const listType = g.markers.get('listType')?.[0] ?? resolved?.type.markers.get('listType')?.[0];
          if (listType) fact.listType = listType as FieldFact['listType'];
          const keys = g.markers.get('listMapKey') ?? resolved?.type.markers.get('listMapKey');
          if (keys) fact.listMapKeys = keys;
          const mapType = g.markers.get('mapType')?.[0] ?? resolved?.type.markers.get('mapType')?.[0];
          if (mapType) fact.mapType = mapType as FieldFact['mapType'];
          const structType =
            g.markers.get('structType')?.[0] ?? (resolved?.type.underlying === 'struct' ? resolved.type.markers.get('structType')?.[0] : undefined);
          if (structType && !inline && !f.repeated && !(f as unknown as Partial<MapField>).keyType) fact.structType = structType as FieldFact['structType'];
          const values = enumValues(p.goPackage, g.goType);
          if (values) fact.enum = values;
          const def = g.markers.get('default')?.[0];
          if (def !== undefined) fact.default = parseDefault(def);
          if (!inline && g.json !== f.name) warnings.push(`${full}: JSON name ${g.json} differs from proto name ${f.name}`);
        } else if (goType) {
          warnings.push(`${full}.${f.name}: no Go field carries this protobuf name`);
        }
        out[name] = fact;
      }
      facts[full] = out;
    }
  }

  const groups: Record<string, string> = {};
  for (const p of protoPackages) {
    if (p.goPackage.groupName === null) continue;
    const version = p.goPackage.path.split('/').pop()!;
    groups[p.goPackage.groupName ? `${p.goPackage.groupName}/${version}` : version] = protoPackageOf(p.goPackage.path);
  }

  const lagging = aggregatorDir && aggregatorTag !== tag ? 'k8s.io/kube-aggregator' : null;
  const modules = sources.map((s) => s.module).filter((m) => m !== lagging);
  const atTag = `${modules.slice(0, -1).join(', ')} and ${modules[modules.length - 1]} ${tag}`;
  const release = `Kubernetes ${tag.replace(/^v0\./, 'v1.')} (${atTag}${lagging ? `; ${lagging} ${aggregatorTag}` : ''})`;
  writeFacts(
    path.join(root, 'src/generated/api-facts.ts'),
    tag,
    release,
    facts,
    groups,
    sliceMessages.sort(),
    protoPackages.map((p) => p.protoFile),
  );
  writeApiTypes(root, release, facts, sliceMessages);
  writeProtos(
    path.join(root, 'proto'),
    release,
    protoPackages.map((p) => ({ file: p.protoFile, pkg: protoPackageOf(p.goPackage.path) })),
    facts,
  );
  writeReleaseTestdata(path.join(root, RELEASE_TESTDATA), release, sources[0]);
  for (const w of warnings) console.warn(`note: ${w}`);
  console.log(`${Object.keys(facts).length} messages from ${protoPackages.length} packages; named string lists: ${sliceMessages.join(', ')}`);
}

/** A message type as the proto file names it (`.pkg.Name`, `pkg.Name` or `Name`) -> its full name. */
function qualify(type: string, pkg: string): string {
  if (type.startsWith('.')) return type.slice(1);
  if (type.includes('.')) return type;
  return `${pkg}.${type}`;
}

function parseDefault(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const HEADER = (release: string): string =>
  `Generated by scripts/gen-api-facts.ts from ${release}. Do not edit: change the pin and run \`npm run gen:api-facts\`.`;

/** v0.36.3 -> { major: '1', minor: '36', patch: '3' }: a k8s.io staging module's tag names its Kubernetes release. */
function kubernetesVersion(tag: string): { major: string; minor: string; patch: string } {
  const m = /^v0\.(\d+)\.(\d+)$/.exec(tag);
  if (!m) throw new Error(`${tag}: expected a release tag v0.X.Y`);
  return { major: '1', minor: m[1], patch: m[2] };
}

function writeFacts(
  file: string,
  tag: string,
  release: string,
  facts: Record<string, Record<string, FieldFact>>,
  groups: Record<string, string>,
  sliceMessages: string[],
  protoFiles: string[],
): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const lines = [
    `// ${HEADER(release)}`,
    `import type { GeneratedFieldFacts } from '../schema/generated-facts';`,
    '',
    `export const API_RELEASE = ${JSON.stringify(release)};`,
    '',
    '/** The Kubernetes version the facts are pinned at (k8s.io/api v0.X.Y is Kubernetes v1.X.Y). */',
    `export const API_KUBERNETES_VERSION = ${JSON.stringify(kubernetesVersion(tag))};`,
    '',
    '/** The proto files, in an order where each file comes after the files it imports. */',
    `export const PROTO_FILES: string[] = ${JSON.stringify(sortProtoFiles(protoFiles), null, 2).replace(/"/g, "'")};`,
    '',
    '/** "group/version" ("v1" for core) -> proto package. */',
    `export const GROUP_VERSION_PACKAGES: Record<string, string> = ${JSON.stringify(groups, null, 2).replace(/"/g, "'")};`,
    '',
    '/** Messages whose Go type is a named []string (ExtraValue, Verbs): `repeated string items = 1` on the wire, the list itself in JSON. */',
    `export const STRING_LIST_MESSAGES: string[] = ${JSON.stringify(sliceMessages, null, 2).replace(/"/g, "'")};`,
    '',
    '/** Proto message full name -> JSON field name (the proto name of an inlined struct) -> facts, in Go declaration order. */',
    'export const API_FIELD_FACTS: Record<string, Record<string, GeneratedFieldFacts>> = {',
  ];
  for (const msg of Object.keys(facts).sort()) {
    lines.push(`  '${msg}': {`);
    for (const [name, fact] of Object.entries(facts[msg]))
      lines.push(`    ${/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `'${name}'`}: ${JSON.stringify(fact)},`);
    lines.push('  },');
  }
  lines.push('};', '');
  writeFileSync(file, lines.join('\n'));
}

/** Where the release's own round-trip data is kept for the codec's drift test (src/codec/release-testdata.test.ts). */
const RELEASE_TESTDATA = 'test/fixtures/release/api-testdata.json.gz';

/**
 * k8s.io/api's testdata/HEAD: every kind of the release with every field set, in JSON and in its
 * Protobuf encoding, as the release's own round-trip tests write them. Kept gzipped, one entry per
 * kind that has both, keyed `<group>.<version>.<Kind>` as the release names the files.
 */
function writeReleaseTestdata(file: string, release: string, api: Source): void {
  const dir = 'testdata/HEAD/';
  const objects: Record<string, { json: unknown; protobuf: string }> = {};
  const files = new Set(api.list().filter((f) => f.startsWith(dir)));
  for (const f of [...files].sort()) {
    if (!f.endsWith('.json') || !files.has(f.replace(/\.json$/, '.pb'))) continue;
    objects[f.slice(dir.length, -'.json'.length)] = { json: JSON.parse(api.read(f)), protobuf: api.readBytes(f.replace(/\.json$/, '.pb')).toString('base64') };
  }
  if (Object.keys(objects).length === 0) throw new Error(`${api.module}: no ${dir} round-trip data`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, gzipSync(JSON.stringify({ release, objects }), { level: 9 }));
}

function sortProtoFiles(files: string[]): string[] {
  const rank = (f: string): number => (f.includes('apimachinery') ? (f.includes('meta/v1') ? 1 : 0) : f.includes('/core/v1/') ? 2 : 3);
  return [...files].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function writeProtos(protoDir: string, release: string, packages: { file: string; pkg: string }[], facts: Record<string, Record<string, FieldFact>>): void {
  rmSync(path.join(protoDir, 'k8s.io'), { recursive: true, force: true });
  const fileOfPackage = new Map(packages.map((p) => [p.pkg, p.file]));
  for (const { file, pkg } of packages) {
    const messages = Object.keys(facts)
      .filter((m) => m.slice(0, m.lastIndexOf('.')) === pkg)
      .sort();
    const imports = new Set<string>();
    const body: string[] = [];
    for (const msg of messages) {
      body.push(`message ${msg.slice(pkg.length + 1)} {`);
      const fields = Object.entries(facts[msg]);
      for (const [name, f] of fields) {
        const scalar = SCALAR_PROTO.has(f.type);
        if (!scalar) {
          const owner = f.type.slice(0, f.type.lastIndexOf('.'));
          if (owner !== pkg) imports.add(fileOfPackage.get(owner) ?? `${owner}?`);
        }
        const type = scalar ? f.type : `.${f.type}`;
        if (f.keyType) body.push(`  map<${f.keyType}, ${type}> ${name} = ${f.number};`);
        else body.push(`  ${f.repeated ? 'repeated' : 'optional'} ${type} ${name} = ${f.number};`);
      }
      body.push('}', '');
    }
    const text = [
      `// ${HEADER(release)}`,
      "// Field names are the JSON names (an inlined struct keeps its proto name), in Go declaration order; numbers and types are the release's.",
      'syntax = "proto2";',
      '',
      `package ${pkg};`,
      '',
      ...[...imports].sort().map((i) => `import "${i}";`),
      ...(imports.size > 0 ? [''] : []),
      ...body,
    ].join('\n');
    const out = path.join(protoDir, file);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, text);
  }
}

main();
