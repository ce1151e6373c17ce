import { createHash } from 'node:crypto';
import { compareGoStrings } from '../api/go-string-order';
import { compareKubeVersions } from '../api/kube-version-order';
import type { GroupVersionKind } from '../api/types';
import { storageApiVersionOf, type ResourceDefinition, type Verb } from '../registry/resource-definition';
import type { GroupVersionEntry, ResourceRegistry } from '../registry/resource-registry';
import { subresourceVerbs, subresourceView } from '../registry/subresources';

/** Discovery documents, legacy (APIVersions, APIGroupList, APIResourceList) and aggregated (apidiscovery v2). */

type LegacyGroup = { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion: { groupVersion: string; version: string } };

/** What discovery takes from extension API servers (the aggregator's APIServices), after kapi's own groups. */
export interface ExtraDiscovery {
  /** Legacy APIGroups of the remote APIServices, versions in priority order. */
  groups(): LegacyGroup[];
  /** apidiscovery v2 APIGroupDiscovery items of the remote group-versions whose resources are known. */
  aggregatedGroups(): Record<string, unknown>[];
}

interface DiscoveredSubresource {
  name: string;
  /** The kind its bodies carry when it is not the resource's own (Scale, Binding, TokenRequest). */
  kind: GroupVersionKind | null;
  verbs: Verb[];
}

/**
 * Update and create subresources alike; kube-apiserver registers a resource's paths sorted, so
 * they come in name order.
 */
function sortedSubresources(def: ResourceDefinition): DiscoveredSubresource[] {
  const subs: DiscoveredSubresource[] = [
    ...def.subresources.map((sub) => ({ name: sub, kind: subresourceView(def, sub)?.kind ?? null, verbs: subresourceVerbs(sub) })),
    ...def.createSubresources.map((sub) => ({ name: sub.name, kind: sub.kind, verbs: subresourceVerbs(sub) })),
    ...def.connectSubresources.map((sub) => ({ name: sub.name, kind: sub.kind, verbs: sub.verbs })),
  ];
  return subs.sort((a, b) => (a.name < b.name ? -1 : 1));
}
/** ... and so its resources in name order too. */
const sortedStores = <T extends { def: ResourceDefinition }>(stores: T[]): T[] => [...stores].sort((a, b) => (a.def.resource < b.def.resource ? -1 : 1));

/**
 * discovery.StorageVersionHash of the storage version (group/version/kind): lets clients notice a
 * change of storage version; versions stored alike (events.k8s.io/v1 and core/v1 Events) share it.
 */
export function storageVersionHash(def: ResourceDefinition): string {
  const apiVersion = storageApiVersionOf(def);
  const groupVersion = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return createHash('sha256').update(`${groupVersion}/${def.kind}`).digest().subarray(0, 8).toString('base64');
}

const discoveredVerbs = (def: ResourceDefinition): Verb[] => def.discoveryVerbs?.() ?? [...def.verbs].sort();

function apiResource(def: ResourceDefinition): Record<string, unknown> {
  const r: Record<string, unknown> = {
    name: def.resource,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: discoveredVerbs(def),
  };
  if (def.shortNames.length > 0) r.shortNames = def.shortNames;
  if (def.categories.length > 0) r.categories = def.categories;
  // Only stored resources have a storage version (the review APIs have none).
  if (!def.compute && !def.computeItems) r.storageVersionHash = storageVersionHash(def);
  return r;
}

export function apiResourceList(entry: GroupVersionEntry): Record<string, unknown> {
  const resources: Record<string, unknown>[] = [];
  for (const { def } of sortedStores(entry.stores)) {
    resources.push(apiResource(def));
    for (const sub of sortedSubresources(def)) {
      // A kind of another group-version is named with it (deployments/scale: autoscaling/v1 Scale); pods/binding's core/v1 Binding is not.
      const own = sub.kind;
      const kind = !own
        ? { kind: def.kind }
        : own.group === def.group && own.version === def.version
          ? { kind: own.kind }
          : { group: own.group, version: own.version, kind: own.kind };
      resources.push({ name: `${def.resource}/${sub.name}`, singularName: '', namespaced: def.namespaced, ...kind, verbs: sub.verbs });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: entry.group ? `${entry.group}/${entry.version}` : entry.version,
    resources,
  };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/**
 * How kube orders groups of equal priority, as all CRDs' are: aggregated discovery by group name
 * (the resource manager's sort), the legacy APIGroupList by the first of the group's APIService names
 * (`<version>.<group>`, the aggregator's SortedByGroupAndVersion).
 */
type TieBreak = 'group' | 'apiService';

/**
 * Each named group's versions, the preferred first. A CRD group's versions come from CRDs created in
 * any order, so they are sorted as kube's DiscoveryController.sync sorts them
 * (sortGroupDiscoveryByKubeAwareVersion, CRD versions sharing one priority in aggregated discovery);
 * the built-in groups' registration order already agrees with it. CRD groups come after every
 * built-in group, ordered as kube breaks their priority tie, whatever order they were created in.
 */
function groupsOf(registry: ResourceRegistry, tieBreak: TieBreak): Map<string, GroupVersionEntry[]> {
  const groups = new Map<string, GroupVersionEntry[]>();
  for (const gv of registry.groupVersions()) {
    if (gv.group === '') continue;
    const list = groups.get(gv.group) ?? [];
    list.push(gv);
    groups.set(gv.group, list);
  }
  for (const list of groups.values()) list.sort((a, b) => compareKubeVersions(a.version, b.version));
  const custom = (versions: GroupVersionEntry[]) => versions.every((gv) => gv.stores.every((s) => s.def.customResource));
  const rank = (name: string, versions: GroupVersionEntry[]): string =>
    tieBreak === 'group' ? name : versions.map((gv) => `${gv.version}.${name}`).reduce((a, b) => (compareGoStrings(b, a) < 0 ? b : a));
  const entries = [...groups];
  const builtIn = entries.filter(([, versions]) => !custom(versions));
  const crds = entries.filter(([, versions]) => custom(versions)).sort(([a, av], [b, bv]) => compareGoStrings(rank(a, av), rank(b, bv)));
  return new Map([...builtIn, ...crds]);
}

function apiGroup(name: string, versions: GroupVersionEntry[]): Record<string, unknown> {
  const gvs = versions.map((v) => ({ groupVersion: `${name}/${v.version}`, version: v.version }));
  return { name, versions: gvs, preferredVersion: gvs[0] };
}

export function apiGroupList(registry: ResourceRegistry, extra?: ExtraDiscovery): Record<string, unknown> {
  const own = groupsOf(registry, 'apiService');
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...[...own].map(([name, versions]) => apiGroup(name, versions)), ...(extra?.groups() ?? []).filter((g) => !own.has(g.name))],
  };
}

export function apiGroupDocument(registry: ResourceRegistry, group: string, extra?: ExtraDiscovery): Record<string, unknown> | null {
  const versions = groupsOf(registry, 'apiService').get(group);
  if (versions) return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) };
  const remote = extra?.groups().find((g) => g.name === group);
  return remote ? { kind: 'APIGroup', apiVersion: 'v1', ...remote } : null;
}

function discoveryResource({ def }: { def: ResourceDefinition }): Record<string, unknown> {
  const responseKind = { group: def.group, version: def.version, kind: def.kind };
  const r: Record<string, unknown> = {
    resource: def.resource,
    responseKind,
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: discoveredVerbs(def),
  };
  if (def.shortNames.length > 0) r.shortNames = def.shortNames;
  if (def.categories.length > 0) r.categories = def.categories;
  const subresources = sortedSubresources(def);
  if (subresources.length > 0) {
    r.subresources = subresources.map(({ name, kind, verbs }) => ({
      subresource: name,
      responseKind: kind ? { group: kind.group, version: kind.version, kind: kind.kind } : responseKind,
      verbs,
    }));
  }
  return r;
}

/** Aggregated discovery for /api (core only) or /apis (every named group). */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean, version: string, extra?: ExtraDiscovery): Record<string, unknown> {
  const own = groupsOf(registry, 'group');
  const items = core
    ? registry
        .groupVersions()
        .filter((gv) => gv.group === '')
        .map((gv) => ({ metadata: { creationTimestamp: null }, versions: [discoveryVersion(gv)] }))
    : [
        ...[...own].map(([name, versions]) => ({
          metadata: { name, creationTimestamp: null },
          versions: versions.map(discoveryVersion),
        })),
        ...(extra?.aggregatedGroups() ?? []).filter((g) => !own.has((g.metadata as { name: string }).name)),
      ];
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

function discoveryVersion(gv: GroupVersionEntry): Record<string, unknown> {
  return { version: gv.version, resources: sortedStores(gv.stores).map(discoveryResource), freshness: 'Current' };
}
