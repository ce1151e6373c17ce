import { isPlainObject } from '../api/types';
import { compareKubeVersions } from '../api/kube-version-order';
import type { ExtraDiscovery } from '../http/discovery';
import { objectsIn, stringOf, stringsIn } from '../api/json-read';
import type { PemPair } from '../auth/certificates';
import type { ApiServiceView } from '../resources/apiservices';
import { backendGet, resolveBackend, type ResolveService } from './backend';
import type { ApiServiceIndex } from './apiservice-index';

type Obj = Record<string, unknown>;

/** How long a discovery fetch may take, as the aggregator's discovery manager bounds it. */
const FETCH_TIMEOUT_MS = 5000;

interface Fetched {
  resources: Obj[];
  fresh: boolean;
}

/** APIServices in the aggregator's order: higher versionPriority first, then kube-aware version order. */
export function byVersionPriority(a: ApiServiceView, b: ApiServiceView): number {
  return b.versionPriority - a.versionPriority || compareKubeVersions(a.version, b.version);
}

/** An APIResourceList's resources as apidiscovery v2 APIResourceDiscovery, subresources under their resource. */
export function toDiscoveryResources(list: unknown, group: string, version: string): Obj[] {
  const resources = objectsIn(isPlainObject(list) ? list.resources : undefined);
  const out = new Map<string, Obj>();
  const kindOf = (r: Obj): Obj => ({
    group: typeof r.group === 'string' ? r.group : group,
    version: typeof r.version === 'string' ? r.version : version,
    kind: stringOf(r.kind),
  });
  for (const r of resources) {
    const name = stringOf(r.name);
    if (name.includes('/')) continue;
    const d: Obj = {
      resource: name,
      responseKind: kindOf(r),
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: stringOf(r.singularName),
      verbs: stringsIn(r.verbs),
    };
    if (stringsIn(r.shortNames).length > 0) d.shortNames = stringsIn(r.shortNames);
    if (stringsIn(r.categories).length > 0) d.categories = stringsIn(r.categories);
    out.set(name, d);
  }
  for (const r of resources) {
    const [parent, sub] = stringOf(r.name).split('/');
    const owner = sub ? out.get(parent) : undefined;
    if (!owner) continue;
    owner.subresources = [...((owner.subresources as Obj[] | undefined) ?? []), { subresource: sub, responseKind: kindOf(r), verbs: stringsIn(r.verbs) }];
  }
  return [...out.values()];
}

/**
 * The aggregator's discovery of extension servers: each remote APIService's group-version
 * document (/apis/<group>/<version>), fetched when the APIService changes and every
 * `refreshMs`; a failed fetch keeps the last answer, marked Stale.
 */
export class DiscoveryCache implements ExtraDiscovery {
  private readonly fetched = new Map<string, Fetched>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly index: ApiServiceIndex,
    private readonly resolve: ResolveService,
    private readonly clientCert: PemPair | null,
    private readonly refreshMs: number,
  ) {
    index.onChange((name) => void this.refresh(name));
  }

  start(): void {
    this.timer = setInterval(() => {
      for (const view of this.index.all()) if (view.service) void this.refresh(view.name);
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async refresh(name: string): Promise<void> {
    const view = this.index.get(name);
    if (!view?.service) {
      this.fetched.delete(name);
      return;
    }
    try {
      const backend = await resolveBackend(view, this.resolve, this.clientCert);
      const answer = await backendGet(backend, `/apis/${view.group}/${view.version}`, 'application/json', FETCH_TIMEOUT_MS);
      if (answer.status !== 200) throw new Error(`bad status ${answer.status}`);
      this.fetched.set(name, { resources: toDiscoveryResources(JSON.parse(answer.body.toString('utf8')), view.group, view.version), fresh: true });
    } catch {
      const previous = this.fetched.get(name);
      if (previous) previous.fresh = false;
    }
  }

  private remoteGroups(): Map<string, ApiServiceView[]> {
    const groups = new Map<string, ApiServiceView[]>();
    for (const view of this.index.all()) {
      if (!view.service) continue;
      groups.set(view.group, [...(groups.get(view.group) ?? []), view]);
    }
    for (const views of groups.values()) views.sort(byVersionPriority);
    return groups;
  }

  groups(): ReturnType<ExtraDiscovery['groups']> {
    return [...this.remoteGroups()].map(([name, views]) => {
      const versions = views.map((v) => ({ groupVersion: `${name}/${v.version}`, version: v.version }));
      return { name, versions, preferredVersion: versions[0] };
    });
  }

  aggregatedGroups(): Obj[] {
    const items: Obj[] = [];
    for (const [name, views] of this.remoteGroups()) {
      const versions = views.flatMap((v) => {
        const fetched = this.fetched.get(v.name);
        return fetched ? [{ version: v.version, resources: fetched.resources, freshness: fetched.fresh ? 'Current' : 'Stale' }] : [];
      });
      if (versions.length > 0) items.push({ metadata: { name, creationTimestamp: null }, versions });
    }
    return items;
  }
}
