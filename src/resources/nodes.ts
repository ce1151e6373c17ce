import { isPlainObject, type KubeObject } from '../api/types';
import type { Node } from '../generated/types/core/v1';
import { nodeProxy } from '../registry/proxy/node-proxy';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateNodeStatusUpdate } from './status-validation';
import { podCidrErrors, podCidrsUnchanged } from './node-pod-cidrs';
import { jsonClone } from '../api/json-clone';

type Obj = Record<string, unknown>;

const status = (n: KubeObject): Obj => (isPlainObject(n.status) ? n.status : {});
const spec = (n: KubeObject): Obj => (isPlainObject(n.spec) ? n.spec : {});
const nodeInfo = (n: KubeObject): Obj => (isPlainObject(status(n).nodeInfo) ? (status(n).nodeInfo as Obj) : {});
const orUnknown = (v: unknown): string => (typeof v === 'string' && v !== '' ? v : '<unknown>');

function address(n: Node, type: string): string {
  const list = Array.isArray(status(n).addresses) ? (status(n).addresses as Obj[]) : [];
  const found = list.find((a) => a.type === type);
  return typeof found?.address === 'string' ? found.address : '<none>';
}

function nodeStatus(n: Node): string {
  const conditions = Array.isArray(status(n).conditions) ? (status(n).conditions as Obj[]) : [];
  const ready = conditions.find((c) => c.type === 'Ready');
  const parts = [!ready ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (spec(n).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function roles(n: Node): string {
  const found = new Set<string>();
  for (const [k, v] of Object.entries(n.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) found.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v) found.add(v);
  }
  const sorted = [...found].filter(Boolean).sort();
  return sorted.length > 0 ? sorted.join(',') : '<none>';
}

export const nodes = defineResource<Node>({
  group: '',
  version: 'v1',
  resource: 'nodes',
  kind: 'Node',
  namespaced: false,
  shortNames: ['no'],
  subresources: ['status'],
  connectSubresources: [nodeProxy],
  storagePath: 'minions',
  strategy: strategy<Node>({
    validateStatusUpdate: validateNodeStatusUpdate,
    prepareForCreate: (node) => {
      // Nodes register with their status; only the config fields of the kubelet are cleared.
      if (isPlainObject(node.spec)) delete node.spec.configSource;
      if (isPlainObject(node.status)) delete node.status.config;
    },
    applyDefaults: (node) => {
      const st = status(node);
      if (st.capacity !== undefined && st.allocatable === undefined) st.allocatable = jsonClone(st.capacity);
    },
    validate: (node, _options, prev) => podCidrErrors(node, prev),
    validateUpdate: podCidrsUnchanged,
  }),
  fieldLabelConversion: { namespaceLabel: false },
  selectableFields: {
    'spec.unschedulable': (n) => String(spec(n).unschedulable === true),
  },
  printerColumns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'The status of the node', cell: nodeStatus },
    { name: 'Roles', type: 'string', description: 'The roles of the node', cell: roles },
    AGE_COLUMN,
    { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.', cell: (n) => nodeInfo(n).kubeletVersion ?? '' },
    { name: 'Internal-IP', type: 'string', priority: 1, description: 'List of addresses reachable to the node.', cell: (n) => address(n, 'InternalIP') },
    { name: 'External-IP', type: 'string', priority: 1, description: 'List of addresses reachable to the node.', cell: (n) => address(n, 'ExternalIP') },
    {
      name: 'OS-Image',
      type: 'string',
      priority: 1,
      description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      cell: (n) => orUnknown(nodeInfo(n).osImage),
    },
    {
      name: 'Kernel-Version',
      type: 'string',
      priority: 1,
      description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      cell: (n) => orUnknown(nodeInfo(n).kernelVersion),
    },
    {
      name: 'Container-Runtime',
      type: 'string',
      priority: 1,
      description: 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      cell: (n) => orUnknown(nodeInfo(n).containerRuntimeVersion),
    },
  ],
});
