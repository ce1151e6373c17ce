import { jsonEqual } from '../../api/deep-equal';
import { internalError, invalid, notAStatus } from '../../api/errors';
import { field, type FieldErrorList } from '../../api/field-errors';
import { isPlainObject, type KubeObject } from '../../api/types';
import { needsHealthCheck, validateServiceClusterIpsRelatedFields } from '../../resources/service-validation';
import type { FinishWrite, WriteHooks } from '../generic-store';
import { IpAllocationError, type ClusterIpAllocator, type ServiceRef } from './ip-allocator';
import { formatIp, parseIp, type IpFamily } from './ip-range';
import { PortAllocationError, type NodePortAllocator, type PortBitmap } from './port-allocator';

/** What a dry run's first node port counts up from (the dry-run PortAllocationOperation's dummy base). */
const DRY_RUN_PORT_BASE = 32768;

type Obj = Record<string, unknown>;

const SERVICE = { group: '', kind: 'Service' };

const specOf = (svc: KubeObject): Obj => (isPlainObject(svc.spec) ? svc.spec : ((svc.spec = {}) as Obj));
const portsOf = (svc: KubeObject): Obj[] => (Array.isArray(specOf(svc).ports) ? (specOf(svc).ports as Obj[]).filter(isPlainObject) : []);
const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const usesNodePorts = (s: Obj): boolean => s.type === 'NodePort' || s.type === 'LoadBalancer';
/** shouldAllocateNodePorts: ports without a nodePort get one. */
const allocatesNodePorts = (s: Obj): boolean => s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
const nodePortOf = (p: Obj): number => (typeof p.nodePort === 'number' ? p.nodePort : 0);
const sameList = (a: unknown, b: unknown): boolean => jsonEqual(stringsOf(a), stringsOf(b));
/** reducedClusterIPs / reducedIPFamilies: given, and fewer than before. */
const reduced = (now: unknown, before: unknown): boolean => stringsOf(now).length > 0 && stringsOf(now).length < stringsOf(before).length;

/**
 * isMatchingPreferDualStackClusterIPFields: a PreferDualStack Service updated with its type,
 * clusterIPs and ipFamilies as they were keeps them, whatever the cluster's families are now.
 */
function isMatchingPreferDualStack(s: Obj, p: Obj): boolean {
  if (s.ipFamilyPolicy === undefined || s.ipFamilyPolicy === null || p.type !== s.type) return false;
  if (s.type !== 'ClusterIP' && s.type !== 'NodePort' && s.type !== 'LoadBalancer') return false;
  if (s.ipFamilyPolicy !== 'PreferDualStack') return false;
  if (p.ipFamilyPolicy !== undefined && p.ipFamilyPolicy !== null && p.ipFamilyPolicy !== 'PreferDualStack') return false;
  return sameList(p.clusterIPs, s.clusterIPs) && sameList(p.ipFamilies, s.ipFamilies);
}

/** The cluster IPs a Service holds (none when headless or ExternalName). */
export function clusterIpsOf(svc: KubeObject): string[] {
  const s = specOf(svc);
  if (s.type === 'ExternalName') return [];
  const ips = stringsOf(s.clusterIPs);
  const all = ips.length > 0 ? ips : typeof s.clusterIP === 'string' && s.clusterIP ? [s.clusterIP] : [];
  return all.filter((ip) => ip !== 'None' && ip !== '');
}

/** The node ports a Service holds: its ports' and its health check's. */
export function nodePortsOf(svc: KubeObject): number[] {
  const s = specOf(svc);
  if (s.type === 'ExternalName') return [];
  const ports = portsOf(svc).map((p) => p.nodePort);
  if (typeof s.healthCheckNodePort === 'number') ports.push(s.healthCheckNodePort);
  return [...new Set(ports.filter((p): p is number => typeof p === 'number' && p > 0))];
}

/** What one write took, given back when the write fails. */
class Taken {
  readonly ips: string[] = [];
  readonly ports: number[] = [];
}

/**
 * The Service registry's allocations around its writes (pkg/registry/core/service/storage/alloc.go):
 * IP families defaulted from the cluster's ranges (initIPFamilyFields), cluster IPs and node ports
 * taken before the write, given back when it fails, and the old ones released once an update or
 * delete no longer uses them. Dry runs check and fill in values but take nothing.
 */
export class ServiceAllocator implements WriteHooks {
  constructor(
    private readonly ips: ClusterIpAllocator,
    private readonly ports: NodePortAllocator,
    /** The families of --service-cluster-ip-range, primary first. */
    private readonly families: IpFamily[],
    private readonly log: (message: string, err?: unknown) => void,
  ) {}

  async beginCreate(svc: KubeObject, dryRun: boolean): Promise<FinishWrite> {
    return this.begin(svc, null, dryRun);
  }

  async beginUpdate(next: KubeObject, prev: KubeObject, dryRun: boolean): Promise<FinishWrite> {
    return this.begin(next, prev, dryRun);
  }

  async afterDelete(svc: KubeObject, dryRun: boolean): Promise<void> {
    if (dryRun) return;
    await this.give(clusterIpsOf(svc), nodePortsOf(svc));
  }

  private async begin(svc: KubeObject, prev: KubeObject | null, dryRun: boolean): Promise<FinishWrite> {
    const errs = this.initIpFamilies(svc, prev);
    if (errs.length > 0) throw invalid(SERVICE, svc.metadata.name ?? '', errs);
    const taken = new Taken();
    try {
      await this.allocateIps(svc, prev, dryRun, taken);
      await this.allocatePorts(svc, prev, dryRun, taken);
    } catch (err) {
      if (!dryRun) await this.give(taken.ips, taken.ports);
      throw err;
    }
    if (dryRun) return async () => undefined;
    return async (stored) => {
      if (!stored) return this.give(taken.ips, taken.ports);
      if (!prev) return;
      const ips = new Set(clusterIpsOf(svc));
      const ports = new Set(nodePortsOf(svc));
      await this.give(
        clusterIpsOf(prev).filter((ip) => !ips.has(ip)),
        nodePortsOf(prev).filter((p) => !ports.has(p)),
      );
    };
  }

  /** Releases; a failure is left to the repair controllers, which find what no Service holds. */
  private async give(ips: string[], ports: number[]): Promise<void> {
    try {
      await Promise.all([...ips.map((ip) => this.ips.release(ip)), this.ports.release(ports)]);
    } catch (err) {
      this.log('releasing service allocations failed; the repair controllers will free them', err);
    }
  }

  /**
   * initIPFamilyFields: ipFamilyPolicy (the old one on update; RequireDualStack for a headless
   * Service without selector; else SingleStack) and ipFamilies (from the clusterIPs, then the
   * cluster's) initialized and checked against the cluster's families, with kube's 422s.
   */
  private initIpFamilies(svc: KubeObject, prev: KubeObject | null): FieldErrorList {
    const s = specOf(svc);
    if (s.type === 'ExternalName') return [];
    if (prev && isMatchingPreferDualStack(s, specOf(prev))) return [];
    const p = prev ? specOf(prev) : null;
    const selectorless = !isPlainObject(s.selector) || Object.keys(s.selector).length === 0;
    if (s.ipFamilyPolicy === undefined || s.ipFamilyPolicy === null) {
      if (p && p.ipFamilyPolicy !== undefined && p.ipFamilyPolicy !== null) s.ipFamilyPolicy = p.ipFamilyPolicy;
      else s.ipFamilyPolicy = s.clusterIP === 'None' && selectorless ? 'RequireDualStack' : 'SingleStack';
    }
    const pre = validateServiceClusterIpsRelatedFields(s);
    if (pre.length > 0) return pre;
    const errs: FieldErrorList = [];
    const policy = s.ipFamilyPolicy;
    if (p) {
      if (policy === 'SingleStack') {
        // With clusterIPs and ipFamilies as they were, SingleStack is the intent to drop the secondary.
        if (sameList(p.clusterIPs, s.clusterIPs) && stringsOf(s.clusterIPs).length > 1) s.clusterIPs = stringsOf(s.clusterIPs).slice(0, 1);
        if (sameList(p.ipFamilies, s.ipFamilies) && stringsOf(s.ipFamilies).length > 1) s.ipFamilies = stringsOf(s.ipFamilies).slice(0, 1);
      } else {
        if (reduced(s.clusterIPs, p.clusterIPs))
          errs.push(field.invalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary cluster IP"));
        if (reduced(s.ipFamilies, p.ipFamilies))
          errs.push(field.invalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
    const ips = stringsOf(s.clusterIPs);
    const families = stringsOf(s.ipFamilies);
    if (policy === 'SingleStack') {
      if (ips.length === 2) {
        errs.push(field.invalid('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
      }
      if (families.length === 2) {
        errs.push(field.invalid('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
      }
    }
    // ipFamilies inferred from the clusterIPs given (validated above).
    for (const [i, ip] of ips.entries()) {
      if (ip === 'None') break;
      if (i < families.length) continue;
      const family = parseIp(ip)!.family;
      if (this.families.includes(family)) families.push(family);
      else errs.push(field.invalid(`spec.clusterIPs[${i}]`, ips, `${family} is not configured on this cluster`));
    }
    if (errs.length > 0) return errs;
    const other = (family: string): IpFamily => (family === 'IPv4' ? 'IPv6' : 'IPv4');
    if (s.clusterIP === 'None' && selectorless) {
      // Headless without selector: any families, even on a single-stack cluster.
      if (families.length === 0) families.push(this.families[0]);
      if (families.length < 2 && policy !== 'SingleStack') families.push(other(families[0]));
      s.ipFamilies = families;
      return [];
    }
    if (policy === 'RequireDualStack' && this.families.length < 2) {
      errs.push(field.invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
    }
    families.forEach((family, i) => {
      if (!this.families.includes(family as IpFamily)) errs.push(field.invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
    });
    if (errs.length > 0) return errs;
    if (families.length === 0) families.push(this.families[0]);
    if (policy !== 'SingleStack' && families.length === 1 && this.families.length === 2) families.push(other(families[0]));
    s.ipFamilies = families;
    return [];
  }

  private async allocateIps(svc: KubeObject, prev: KubeObject | null, dryRun: boolean, taken: Taken): Promise<void> {
    const s = specOf(svc);
    if (s.type === 'ExternalName') return;
    const requested = stringsOf(s.clusterIPs);
    const families = stringsOf(s.ipFamilies);
    // updateClusterIPs: an update allocates for a Service that had no IPs (it was ExternalName), or the
    // secondary IP of one upgraded to dual stack; any other change of IP is left to validation.
    let from = 0;
    if (prev) {
      const p = specOf(prev);
      if (isMatchingPreferDualStack(s, p)) return;
      if (p.type !== 'ExternalName') {
        if (stringsOf(p.clusterIPs)[0] === 'None') return;
        if (!(stringsOf(p.ipFamilies).length === 1 && families.length === 2)) return;
        from = 1;
      }
    }
    if (requested[0] === 'None') return;
    // Families without an IP get the empty marker, which the error shows as kube's does.
    const marked = families.map((_, i) => requested[i] ?? '');
    const ref: ServiceRef = { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '' };
    const result: string[] = marked.slice(0, from);
    for (const [i, family] of families.entries()) {
      if (i < from) continue;
      const want = marked[i];
      if (want) {
        const ip = parseIp(want)!;
        try {
          await this.ips.allocate(ip, ref, dryRun);
        } catch (err) {
          if (!(err instanceof IpAllocationError)) throw err;
          throw invalid(SERVICE, ref.name, [field.invalid('spec.clusterIPs', marked, `failed to allocate IP ${want}: ${err.message}`)]);
        }
        if (!dryRun) taken.ips.push(formatIp(ip));
        result.push(want);
        continue;
      }
      try {
        const ip = formatIp(await this.ips.allocateNext(family as IpFamily, ref, dryRun));
        if (!dryRun) taken.ips.push(ip);
        result.push(ip);
      } catch (err) {
        if (!(err instanceof IpAllocationError)) throw err;
        throw internalError(`failed to allocate a serviceIP: ${err.message}`);
      }
    }
    s.clusterIPs = result;
    s.clusterIP = result[0];
  }

  /**
   * Node ports as kube's txnAllocNodePorts (create: one node port per port number, a requested
   * one wherever it appears) and txnUpdateNodePorts (update: each new value taken, each missing
   * one allocated), then the health check node port a Service comes to need.
   */
  private async allocatePorts(svc: KubeObject, prev: KubeObject | null, dryRun: boolean, taken: Taken): Promise<void> {
    const s = specOf(svc);
    const name = svc.metadata.name ?? '';
    const op = new PortOperation(this.ports, dryRun, taken);
    const ports = portsOf(svc);
    const take = async (port: number, path: string): Promise<void> => {
      try {
        await op.allocate(port);
      } catch (err) {
        if (!(err instanceof PortAllocationError)) throw err;
        throw invalid(SERVICE, name, [field.invalid(path, port, err.message)]);
      }
    };
    const next = async (): Promise<number> => {
      try {
        return await op.allocateNext();
      } catch (err) {
        if (!(err instanceof PortAllocationError)) throw err;
        throw internalError(`failed to allocate a nodePort: ${err.message}`);
      }
    };
    if (usesNodePorts(s) && !prev) {
      const byPort = new Map<unknown, number>();
      for (const [i, port] of ports.entries()) {
        const given = nodePortOf(port);
        if (given === 0 && !allocatesNodePorts(s)) continue;
        const shared = byPort.get(port.port) ?? 0;
        if (shared === 0) {
          // findRequestedNodePort: the first node port asked for this port number, wherever it is.
          const requested = ports.map(nodePortOf).find((n, j) => n !== 0 && ports[j].port === port.port) ?? 0;
          if (requested !== 0) await take(requested, `spec.ports[${i}].nodePort`);
          port.nodePort = requested !== 0 ? requested : await next();
          byPort.set(port.port, port.nodePort as number);
        } else if (given !== shared) {
          if (given === 0) port.nodePort = shared;
          else await take(given, `spec.ports[${i}].nodePort`);
        }
      }
    } else if (usesNodePorts(s) && prev) {
      const old = new Set(portsOf(prev).map(nodePortOf));
      const claimed = new Set<number>();
      const seen = new Set<string>();
      for (const [i, port] of ports.entries()) {
        const given = nodePortOf(port);
        if (given === 0 && !allocatesNodePorts(s)) continue;
        if (given !== 0) {
          if (!old.has(given) && !claimed.has(given)) {
            await take(given, `spec.ports[${i}].nodePort`);
            claimed.add(given);
          }
        } else port.nodePort = await next();
        const key = `${String(port.protocol)} ${String(port.nodePort)}`;
        if (seen.has(key)) throw notAStatus(`duplicate nodePort: {${key}}`);
        seen.add(key);
      }
    }
    if (needsHealthCheck(s) && !(prev && needsHealthCheck(specOf(prev)))) {
      const given = typeof s.healthCheckNodePort === 'number' ? s.healthCheckNodePort : 0;
      try {
        if (given !== 0) await op.allocate(given);
        else s.healthCheckNodePort = await op.allocateNext();
      } catch (err) {
        if (!(err instanceof PortAllocationError)) throw err;
        throw internalError(
          given !== 0
            ? `failed to allocate requested HealthCheck NodePort ${given}: ${err.message}`
            : `failed to allocate a HealthCheck NodePort 0: ${err.message}`,
        );
      }
    }
  }
}

/**
 * One write's node port allocations (portallocator's PortAllocationOperation). A dry run takes
 * nothing: a port asked for is refused only when it is taken (its range is not checked), and a
 * free one is a placeholder counting up from 32769, as kube's dry-run AllocateNext gives.
 */
class PortOperation {
  private readonly allocated: number[] = [];
  private bitmap: PortBitmap | null = null;

  constructor(
    private readonly ports: NodePortAllocator,
    private readonly dryRun: boolean,
    private readonly taken: Taken,
  ) {}

  async allocate(port: number): Promise<void> {
    if (this.dryRun) {
      this.bitmap ??= await this.ports.read();
      if (this.bitmap.has(port) || this.allocated.includes(port)) throw PortAllocationError.allocated();
    } else {
      await this.ports.allocate(port, false);
      this.taken.ports.push(port);
    }
    this.allocated.push(port);
  }

  async allocateNext(): Promise<number> {
    if (this.dryRun) {
      const port = (this.allocated.length === 0 ? DRY_RUN_PORT_BASE : Math.max(...this.allocated)) + 1;
      this.allocated.push(port);
      return port;
    }
    const port = await this.ports.allocateNext(false);
    this.taken.ports.push(port);
    this.allocated.push(port);
    return port;
  }
}
