import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Type } from 'protobufjs';
import { lookupMessage, protoType } from './proto-loader';
import { API_FIELD_FACTS, API_RELEASE, PROTO_FILES, STRING_LIST_MESSAGES } from '../generated/api-facts';
import { BUILT_IN_RESOURCES } from '../resources';
import { FIELD_FACTS } from './field-facts';
import { kindSchema, type ObjectNode, type SchemaNode } from './typed-schema';

/**
 * Drift between what kapi serves and the pinned release (src/generated/api-facts.ts): every served
 * built-in kind's schema, walked field by field, must say what the release's facts say, and the
 * wire schema in proto/ must be the one generated from them.
 */

const SCALAR_NODE: Record<string, string> = {
  string: 'string',
  bool: 'boolean',
  int32: 'int32',
  int64: 'int64',
  double: 'number',
  float: 'number',
  bytes: 'bytes',
};

const SPECIAL_NODE: Record<string, string> = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'duration',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'free',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'free',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'int-or-string',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  ...Object.fromEntries(STRING_LIST_MESSAGES.map((m) => [m, 'list'])),
};

/** The JSON fields of a message per the release: inlined structs' fields in their place. */
function releaseFields(message: string): Map<string, { owner: string; name: string }> {
  const out = new Map<string, { owner: string; name: string }>();
  for (const [name, f] of Object.entries(API_FIELD_FACTS[message] ?? {})) {
    if (f.inline) for (const [k, v] of releaseFields(f.type)) out.set(k, v);
    else out.set(name, { owner: message, name });
  }
  return out;
}

function describeValue(node: SchemaNode): string {
  if (node.kind === 'scalar') return node.type;
  if (node.kind === 'object') return node.fullName;
  return node.kind;
}

/** Every difference between a kind's schema and the release, as "Message.field: what". */
function drift(node: ObjectNode, seen: Set<string>, out: string[]): void {
  if (seen.has(node.fullName)) return;
  seen.add(node.fullName);
  const expected = releaseFields(node.fullName);
  const served = new Set(node.fieldNames());
  for (const name of served) if (!expected.has(name)) out.push(`${node.fullName}.${name}: not in ${API_RELEASE}`);
  for (const [name, { owner, name: factName }] of expected) {
    const field = node.field(name);
    if (!field) {
      out.push(`${node.fullName}.${name}: missing`);
      continue;
    }
    const facts = API_FIELD_FACTS[owner][factName];
    const where = `${node.fullName}.${name}`;
    let value = field.node;
    if (facts.keyType) {
      if (value.kind !== 'map') out.push(`${where}: a ${value.kind}, the release has a map`);
      else {
        if (value.atomic !== (facts.mapType === 'atomic')) out.push(`${where}: map type`);
        value = value.values;
      }
    } else if (facts.repeated) {
      if (value.kind !== 'list') out.push(`${where}: a ${value.kind}, the release has a list`);
      else {
        if (facts.listType && value.listType !== facts.listType) out.push(`${where}: list type ${value.listType}, the release's ${facts.listType}`);
        if (facts.listMapKeys && value.keys.join() !== facts.listMapKeys.join()) out.push(`${where}: keys ${value.keys}, the release's ${facts.listMapKeys}`);
        value = value.items;
      }
    }
    const want = SCALAR_NODE[facts.type] ?? SPECIAL_NODE[facts.type] ?? facts.type;
    if (describeValue(value) !== want && !(value.kind === 'scalar' && value.type === 'int32' && facts.type.endsWith('int32'))) {
      out.push(`${where}: ${describeValue(value)}, the release's ${facts.type}`);
    }
    if (value.kind === 'object') {
      if (value.atomic !== (facts.structType === 'atomic')) out.push(`${where}: structType`);
      drift(value, seen, out);
    }
    if (JSON.stringify(field.facts) !== JSON.stringify(FIELD_FACTS[owner][factName])) out.push(`${where}: facts differ from the generated ones`);
  }
}

/** Every difference between a proto message kapi loads and the release's facts of it. */
function wireDrift(type: Type, seen: Set<string>, out: string[]): void {
  const name = type.fullName.slice(1);
  if (seen.has(name)) return;
  seen.add(name);
  const facts = API_FIELD_FACTS[name];
  if (!facts) return;
  const loaded = new Map(type.fieldsArray.map((f) => [f.name, f]));
  if ([...loaded.keys()].join() !== Object.keys(facts).join()) out.push(`${name}: fields ${[...loaded.keys()]} != ${Object.keys(facts)}`);
  for (const [fieldName, f] of Object.entries(facts)) {
    const field = loaded.get(fieldName);
    if (!field) continue;
    field.resolve();
    const loadedType = field.resolvedType ? field.resolvedType.fullName.slice(1) : field.type;
    if (field.id !== f.number || loadedType !== f.type || field.repeated !== !!f.repeated || field.map !== !!f.keyType) {
      out.push(`${name}.${fieldName}: ${field.id} ${loadedType}, the release's ${f.number} ${f.type}`);
    }
    if (field.resolvedType && 'fieldsArray' in field.resolvedType) wireDrift(field.resolvedType as Type, seen, out);
  }
}

const builtIns = BUILT_IN_RESOURCES.filter((def) => !def.ownSchema && lookupMessage(def));

describe(`the served built-in kinds against ${API_RELEASE}`, () => {
  test('every built-in kind but CustomResourceDefinition has a message in the release', () => {
    const without = BUILT_IN_RESOURCES.filter((def) => !def.ownSchema && !lookupMessage(def)).map((def) => `${def.group}/${def.version} ${def.kind}`);
    expect(without).toEqual([]);
    expect(builtIns.length).toBeGreaterThan(30);
  });

  test.each(builtIns.map((def) => [`${def.group || 'core'}/${def.version} ${def.kind}`, def] as const))('%s: schema field by field', (_name, def) => {
    const out: string[] = [];
    drift(kindSchema(def)!, new Set(), out);
    expect(out).toEqual([]);
  });

  test.each(builtIns.map((def) => [`${def.group || 'core'}/${def.version} ${def.kind}`, def] as const))('%s: proto/ wire schema', (_name, def) => {
    const out: string[] = [];
    wireDrift(lookupMessage(def)!, new Set(), out);
    expect(out).toEqual([]);
  });

  test('fields the release does not have are gone', () => {
    expect(kindSchema({ group: '', version: 'v1', kind: 'Pod' })!.field('spec')).toBeTruthy();
    const securityContext = protoType('k8s.io.api.core.v1.SecurityContext');
    expect(securityContext.fields.ulimits).toBeUndefined();
    expect(protoType('k8s.io.api.core.v1.NodeFeatures').fields.containerUlimits).toBeUndefined();
    expect(protoType('k8s.io.api.apps.v1.DeploymentSpec').fields.podReplacementPolicy).toBeUndefined();
  });

  test('every proto file names the release it was generated from', () => {
    const root = path.resolve(__dirname, '../../proto');
    for (const file of PROTO_FILES) expect(readFileSync(path.join(root, file), 'utf8').split('\n')[0]).toContain(API_RELEASE);
  });
});
