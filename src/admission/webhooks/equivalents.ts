import type { GroupVersionKind, KubeObject } from '../../api/types';
import { apiVersionOfDefinition, type ResourceDefinition } from '../../registry/resource-definition';
import type { ResourceRegistry } from '../../registry/resource-registry';
import type { AdmissionOperation } from '../admission';
import { ruleMatches, type RuleTarget } from './matching';
import { jsonClone } from '../../api/json-clone';

/** Another version (or group) of the same objects, and how the request's object reads in it. */
export interface EquivalentResource {
  group: string;
  version: string;
  resource: string;
  kind: GroupVersionKind;
  /** The request's object as this version has it. */
  convert(obj: KubeObject): KubeObject;
  /** Back from this version to the request's (a mutating webhook's patched object). */
  revert(obj: KubeObject): KubeObject;
}

/** The equivalent resources of a definition, itself first (EquivalentResourceMapper.EquivalentResourcesFor). */
export type EquivalentsOf = (def: ResourceDefinition) => EquivalentResource[];

/**
 * Versions kube-apiserver served in earlier releases for the apps workloads. Their objects have
 * the same structure as apps/v1's, so a webhook or policy written for them still sees the request,
 * the object relabelled with that version (docs/divergences.md).
 */
const RETIRED_VERSIONS: Record<string, { group: string; version: string }[]> = {
  'apps/deployments': [
    { group: 'apps', version: 'v1beta2' },
    { group: 'apps', version: 'v1beta1' },
    { group: 'extensions', version: 'v1beta1' },
  ],
  'apps/daemonsets': [
    { group: 'apps', version: 'v1beta2' },
    { group: 'extensions', version: 'v1beta1' },
  ],
  'apps/replicasets': [
    { group: 'apps', version: 'v1beta2' },
    { group: 'extensions', version: 'v1beta1' },
  ],
  'apps/statefulsets': [
    { group: 'apps', version: 'v1beta2' },
    { group: 'apps', version: 'v1beta1' },
  ],
};

const relabel = (obj: KubeObject, apiVersion: string, kind: string): KubeObject => ({ ...obj, apiVersion, kind });

/** A definition's object as the storage version has it, then as `to` has it. */
function converter(from: ResourceDefinition, to: ResourceDefinition) {
  return (obj: KubeObject): KubeObject => {
    const stored = from.conversion ? from.conversion.toStorage(jsonClone(obj)) : obj;
    const out = to.conversion ? to.conversion.fromStorage(jsonClone(stored)) : stored;
    return relabel(out, apiVersionOfDefinition(to), to.kind);
  };
}

/**
 * Equivalents from the registry: every served version sharing the definition's storage, then the
 * retired apps versions. Asked on every admitted request, so kept per definition until the served
 * set changes (a CRD comes or goes).
 */
export function registryEquivalents(registry: ResourceRegistry): EquivalentsOf {
  const cache = new WeakMap<ResourceDefinition, { generation: number; equivalents: EquivalentResource[] }>();
  return (def) => {
    const hit = cache.get(def);
    if (hit?.generation === registry.generation) return hit.equivalents;
    const equivalents = equivalentsIn(registry, def);
    cache.set(def, { generation: registry.generation, equivalents });
    return equivalents;
  };
}

function equivalentsIn(registry: ResourceRegistry, def: ResourceDefinition): EquivalentResource[] {
  const served = registry
    .groupVersions()
    .flatMap((gv) => gv.stores.map((s) => s.def))
    .filter(
      (d) =>
        d.storagePath === def.storagePath &&
        !d.compute &&
        !d.computeItems &&
        d.kind === def.kind &&
        (d.group !== def.group || d.version !== def.version || d.resource !== def.resource),
    );
  const retired = (RETIRED_VERSIONS[`${def.group}/${def.resource}`] ?? []).map((gv) => ({
    ...gv,
    resource: def.resource,
    kind: { ...gv, kind: def.kind },
    convert: (obj: KubeObject) => relabel(obj, `${gv.group}/${gv.version}`, def.kind),
    revert: (obj: KubeObject) => relabel(obj, apiVersionOfDefinition(def), def.kind),
  }));
  return [
    {
      group: def.group,
      version: def.version,
      resource: def.resource,
      kind: { group: def.group, version: def.version, kind: def.kind },
      convert: (obj: KubeObject) => obj,
      revert: (obj: KubeObject) => obj,
    },
    ...served.map((d) => ({
      group: d.group,
      version: d.version,
      resource: d.resource,
      kind: { group: d.group, version: d.version, kind: d.kind },
      convert: converter(def, d),
      revert: converter(d, def),
    })),
    ...retired,
  ];
}

/** What the request is matched as: its own resource, or (matchPolicy Equivalent) the first equivalent a rule names. */
export interface MatchedResource {
  resource: { group: string; version: string; resource: string };
  kind: GroupVersionKind;
  convert(obj: KubeObject): KubeObject;
  revert(obj: KubeObject): KubeObject;
}

const matched = (e: EquivalentResource): MatchedResource => ({
  resource: { group: e.group, version: e.version, resource: e.resource },
  kind: e.kind,
  convert: e.convert,
  revert: e.revert,
});

/**
 * The first rule matching the request's resource; failing that, under matchPolicy Equivalent, the
 * earliest rule matching an equivalent resource (generic.Webhook.ShouldCallHook's OuterLoop).
 */
export function matchResource(
  rules: Record<string, unknown>[],
  target: { operation: AdmissionOperation; subresource: string; clusterScoped: boolean },
  equivalents: EquivalentResource[],
  equivalent: boolean,
  extra: (rule: Record<string, unknown>) => boolean = () => true,
): MatchedResource | null {
  const [own, ...others] = equivalents;
  const as = (e: EquivalentResource): RuleTarget => ({ ...target, group: e.group, version: e.version, resource: e.resource });
  if (rules.some((rule) => extra(rule) && ruleMatches(rule, as(own)))) return matched(own);
  if (!equivalent) return null;
  for (const rule of rules) {
    if (!extra(rule)) continue;
    const found = others.find((e) => ruleMatches(rule, as(e)));
    if (found) return matched(found);
  }
  return null;
}
