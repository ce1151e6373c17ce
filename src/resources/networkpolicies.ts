import { field, type FieldErrorList } from '../api/field-errors';
import type { NetworkPolicy } from '../generated/types/networking/v1';
import { objectsIn as records } from '../api/json-read';
import { validateLabelSelector } from '../api/meta-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { isStrictSubset, isValidPortName, isValidPortNum, legacyCidrErrors, parseCidrSloppy } from './network-validation';
import { formatLabelSelector } from './workload';

/** networking.k8s.io/v1 NetworkPolicy: stored, defaulted and validated as kube-apiserver does (nothing enforces it). */

type Obj = Record<string, unknown>;

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

const spec = (np: KubeObject): Obj => (isPlainObject(np.spec) ? np.spec : ((np.spec = {}) as Obj));

function rulePorts(s: Obj): Obj[] {
  return [...records(s.ingress), ...records(s.egress)].flatMap((rule) => records(rule.ports));
}

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort; podSelector is a Go struct, so always present. */
function defaultNetworkPolicy(np: NetworkPolicy): void {
  const s = spec(np);
  if (!isPlainObject(s.podSelector)) s.podSelector = {};
  for (const port of rulePorts(s)) port.protocol ??= 'TCP';
  if (!Array.isArray(s.policyTypes) || s.policyTypes.length === 0) {
    s.policyTypes = records(s.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

/** ValidateNetworkPolicyPort. */
function validatePort(port: Obj, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol as string)) errs.push(field.notSupported(`${path}.protocol`, port.protocol, PROTOCOLS));
  const endPort = port.endPort;
  if (typeof port.port === 'number') {
    for (const msg of isValidPortNum(port.port)) errs.push(field.invalid(`${path}.port`, port.port, msg));
    if (typeof endPort === 'number') {
      if (endPort < port.port) errs.push(field.invalid(`${path}.endPort`, endPort, 'must be greater than or equal to `port`'));
      for (const msg of isValidPortNum(endPort)) errs.push(field.invalid(`${path}.endPort`, endPort, msg));
    }
  } else if (typeof port.port === 'string') {
    if (endPort !== undefined) errs.push(field.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
    for (const msg of isValidPortName(port.port)) errs.push(field.invalid(`${path}.port`, port.port, msg));
  } else if (endPort !== undefined) {
    errs.push(field.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

/**
 * ValidateIPBlock: a CIDR, and exceptions strictly inside it; strict parsing (StrictIPCIDRValidation)
 * spares the CIDRs the old policy already had.
 */
function validateIpBlock(block: Obj, path: string, oldCidrs: readonly string[]): FieldErrorList {
  const cidrText = typeof block.cidr === 'string' ? block.cidr : '';
  if (!cidrText) return [field.required(`${path}.cidr`)];
  const errs = legacyCidrErrors(`${path}.cidr`, cidrText, oldCidrs);
  const cidr = parseCidrSloppy(cidrText)?.cidr;
  if (!cidr) return errs;
  (Array.isArray(block.except) ? block.except : []).forEach((text: unknown, i) => {
    const at = `${path}.except[${i}]`;
    const value = typeof text === 'string' ? text : '';
    errs.push(...legacyCidrErrors(at, value, oldCidrs));
    const except = parseCidrSloppy(value)?.cidr;
    if (except && !isStrictSubset(except, cidr)) errs.push(field.invalid(at, value, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

/** Every CIDR of a policy's ipBlocks, exceptions included (ValidateNetworkPolicyUpdate's AllowCIDRsEvenIfInvalid). */
function ipBlockCidrs(np: KubeObject): string[] {
  const s = spec(np);
  const peers = [...records(s.ingress).flatMap((rule) => records(rule.from)), ...records(s.egress).flatMap((rule) => records(rule.to))];
  return peers.flatMap((peer) => {
    const block = isPlainObject(peer.ipBlock) ? peer.ipBlock : null;
    if (!block) return [];
    return [block.cidr, ...(Array.isArray(block.except) ? block.except : [])].filter((c): c is string => typeof c === 'string');
  });
}

/** ValidateNetworkPolicyPeer: at least one selector or an ipBlock, and an ipBlock alone. */
function validatePeer(peer: Obj, path: string, oldCidrs: readonly string[]): FieldErrorList {
  const errs: FieldErrorList = [];
  let peers = 0;
  for (const key of ['podSelector', 'namespaceSelector']) {
    if (!isPlainObject(peer[key])) continue;
    peers++;
    errs.push(...validateLabelSelector(peer[key] as Obj, `${path}.${key}`));
  }
  if (isPlainObject(peer.ipBlock)) {
    peers++;
    errs.push(...validateIpBlock(peer.ipBlock, `${path}.ipBlock`, oldCidrs));
  }
  if (peers === 0) errs.push(field.required(path, 'must specify a peer'));
  else if (peers > 1 && isPlainObject(peer.ipBlock)) errs.push(field.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

function validateRules(rules: Obj[], direction: 'ingress' | 'egress', peersKey: 'from' | 'to', oldCidrs: readonly string[]): FieldErrorList {
  return rules.flatMap((rule, i) => {
    const path = `spec.${direction}[${i}]`;
    return [
      ...records(rule.ports).flatMap((port, j) => validatePort(port, `${path}.ports[${j}]`)),
      ...records(rule[peersKey]).flatMap((peer, j) => validatePeer(peer, `${path}.${peersKey}[${j}]`, oldCidrs)),
    ];
  });
}

/** ValidateNetworkPolicySpec. */
function validateNetworkPolicy(np: NetworkPolicy, oldCidrs: readonly string[]): FieldErrorList {
  const s = spec(np);
  const errs: FieldErrorList = [
    ...validateLabelSelector(isPlainObject(s.podSelector) ? s.podSelector : {}, 'spec.podSelector'),
    ...validateRules(records(s.ingress), 'ingress', 'from', oldCidrs),
    ...validateRules(records(s.egress), 'egress', 'to', oldCidrs),
  ];
  const policyTypes: unknown[] = Array.isArray(s.policyTypes) ? s.policyTypes : [];
  if (policyTypes.length > POLICY_TYPES.length) return [...errs, field.invalid('spec.policyTypes', policyTypes, 'may not specify more than two policyTypes')];
  policyTypes.forEach((type, i) => {
    if (!POLICY_TYPES.includes(type as string)) errs.push(field.notSupported(`spec.policyTypes[${i}]`, type, POLICY_TYPES));
  });
  return errs;
}

export const networkpolicies = defineResource<NetworkPolicy>({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'networkpolicies',
  kind: 'NetworkPolicy',
  namespaced: true,
  shortNames: ['netpol'],
  strategy: strategy<NetworkPolicy>({
    tracksGeneration: true,
    applyDefaults: defaultNetworkPolicy,
    validateCreate: (np) => validateNetworkPolicy(np, []),
    validateUpdate: (np, prev) => validateNetworkPolicy(np, ipBlockCidrs(prev)),
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Pod-Selector',
      type: 'string',
      description:
        "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in the policy's namespace. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is optional. If it is not specified, it defaults to an empty selector.",
      cell: (np) => formatLabelSelector(spec(np).podSelector),
    },
    AGE_COLUMN,
  ],
});
