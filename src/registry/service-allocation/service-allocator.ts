import { internalError, invalid } from '../../api/errors';
import { field, GoSyntax, type FieldErrorList } from '../../api/field-errors';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { FinishWrite, WriteHooks } from '../generic-store';
import { IpAllocationError, type ClusterIpAllocator, type ServiceRef } from './ip-allocator';
import { formatIp, parseIp, type IpFamily } from './ip-range';
import { PortAllocationError, type NodePortAllocator } from './port-allocator';

type Obj = Record<string, unknown>;

const SERVICE = { group: '', kind: 'Service' };
const FAMILIES: IpFamily[] = ['IPv4', 'IPv6'];

const specOf = (svc: KubeObject): Obj => (isPlainObject(svc.spec) ? svc.spec : ((svc.spec = {}) as Obj));
const portsOf = (svc: KubeObject): Obj[] => (Array.isArray(specOf(svc).ports) ? (specOf(svc).ports as Obj[]).filter(isPlainObject) : []);
const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const wantsNodePorts = (s: Obj): boolean => s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
export const needsHealthCheckNodePort = (s: Obj): boolean => s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';

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

  /** initIPFamilyFields: ipFamilies and ipFamilyPolicy from the request, its clusterIPs and the cluster's families. */
  private initIpFamilies(svc: KubeObject, prev: KubeObject | null): FieldErrorList {
    const s = specOf(svc);
    if (s.type === 'ExternalName') return [];
    let ips = stringsOf(s.clusterIPs);
    if (ips.length === 0 && typeof s.clusterIP === 'string' && s.clusterIP) ips = [s.clusterIP];
    const headless = ips[0] === 'None';
    const selectorless = !isPlainObject(s.selector) || Object.keys(s.selector).length === 0;
    const families = stringsOf(s.ipFamilies);
    const errs: FieldErrorList = [];
    ips.forEach((ip, i) => {
      if (ip === 'None') return;
      const parsed = parseIp(ip);
      if (!parsed) {
        errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
        return;
      }
      if (i >= families.length) families.push(parsed.family);
      else if (families[i] !== parsed.family)
        errs.push(field.invalid(`spec.ipFamilies[${i}]`, families[i], `must match the IP family of spec.clusterIPs[${i}]`));
    });
    if (errs.length > 0) return errs;
    const dualCluster = this.families.length === 2;
    if (s.ipFamilyPolicy === undefined || s.ipFamilyPolicy === null) {
      s.ipFamilyPolicy = headless && selectorless ? 'RequireDualStack' : 'SingleStack';
    }
    const policy = s.ipFamilyPolicy;
    // A SingleStack update of a dual-stack Service drops the secondary family (and its IP).
    if (prev && policy === 'SingleStack' && families.length === 2 && ips.length <= 2) {
      families.splice(1);
      if (ips.length === 2) ips = ips.slice(0, 1);
    }
    if (policy === 'RequireDualStack' && !dualCluster && !(headless && selectorless)) {
      errs.push(field.invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
    }
    if (policy === 'SingleStack' && families.length > 1) {
      errs.push(field.invalid('spec.ipFamilyPolicy', policy, 'must be RequireDualStack or PreferDualStack when multiple IP families are specified'));
    }
    families.forEach((family, i) => {
      if (!FAMILIES.includes(family as IpFamily)) errs.push(field.notSupported(`spec.ipFamilies[${i}]`, family, FAMILIES));
      else if (!this.families.includes(family as IpFamily) && !(headless && selectorless))
        errs.push(field.invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
    });
    if (errs.length > 0) return errs;
    if (families.length === 0) families.push(this.families[0]);
    if (policy !== 'SingleStack' && families.length === 1 && dualCluster) families.push(this.families.find((f) => f !== families[0])!);
    s.ipFamilies = families;
    if (ips.length > 0) {
      s.clusterIPs = ips;
      s.clusterIP = ips[0];
    }
    return [];
  }

  private async allocateIps(svc: KubeObject, prev: KubeObject | null, dryRun: boolean, taken: Taken): Promise<void> {
    const s = specOf(svc);
    if (s.type === 'ExternalName') return;
    const requested = stringsOf(s.clusterIPs);
    if (requested[0] === 'None') return;
    const held = new Set(prev ? clusterIpsOf(prev) : []);
    const ref: ServiceRef = { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '' };
    const result: string[] = [];
    for (const [i, family] of stringsOf(s.ipFamilies).entries()) {
      const want = requested[i];
      if (want && held.has(want)) {
        result.push(want);
        continue;
      }
      if (want) {
        const ip = parseIp(want)!;
        try {
          await this.ips.allocate(ip, ref, dryRun);
        } catch (err) {
          if (!(err instanceof IpAllocationError)) throw err;
          throw invalid(SERVICE, ref.name, [field.invalid('spec.clusterIPs', GoSyntax.strings(requested), `failed to allocate IP ${want}: ${err.message}`)]);
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

  private async allocatePorts(svc: KubeObject, prev: KubeObject | null, dryRun: boolean, taken: Taken): Promise<void> {
    const s = specOf(svc);
    if (s.type === 'ExternalName') return;
    const held = new Set(prev ? nodePortsOf(prev) : []);
    const name = svc.metadata.name ?? '';
    const mine = new Set<number>();
    const take = async (port: number, path: string): Promise<void> => {
      if (held.has(port) || mine.has(port)) return;
      try {
        await this.ports.allocate(port, dryRun);
      } catch (err) {
        if (!(err instanceof PortAllocationError)) throw err;
        throw invalid(SERVICE, name, [field.invalid(path, port, err.message)]);
      }
      mine.add(port);
      if (!dryRun) taken.ports.push(port);
    };
    const next = async (): Promise<number> => {
      try {
        const port = await this.ports.allocateNext(dryRun);
        mine.add(port);
        if (!dryRun) taken.ports.push(port);
        return port;
      } catch (err) {
        if (!(err instanceof PortAllocationError)) throw err;
        throw internalError(`failed to allocate a nodePort: ${err.message}`);
      }
    };
    // One node port serves a port number whatever its protocols (kube's initNodePorts).
    const byPort = new Map<unknown, number>();
    for (const [i, port] of portsOf(svc).entries()) {
      const given = typeof port.nodePort === 'number' && port.nodePort > 0 ? port.nodePort : 0;
      if (given) await take(given, `spec.ports[${i}].nodePort`);
      else if (wantsNodePorts(s)) port.nodePort = byPort.get(port.port) ?? (await next());
      else continue;
      byPort.set(port.port, port.nodePort as number);
    }
    if (needsHealthCheckNodePort(s)) {
      const given = typeof s.healthCheckNodePort === 'number' && s.healthCheckNodePort > 0 ? s.healthCheckNodePort : 0;
      if (given) await take(given, 'spec.healthCheckNodePort');
      else s.healthCheckNodePort = await next();
    }
  }
}
