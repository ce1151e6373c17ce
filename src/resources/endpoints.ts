import { isPlainObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

type Obj = Record<string, unknown>;

const subsets = (o: Obj): Obj[] => (Array.isArray(o.subsets) ? o.subsets.filter(isPlainObject) : []);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);

/** formatEndpoints: the first three ip:port pairs, then how many more. */
function formatEndpoints(ep: Obj): string {
  const all: string[] = [];
  for (const ss of subsets(ep)) {
    const ports = list(ss.ports);
    for (const addr of list(ss.addresses)) {
      if (ports.length === 0) all.push(String(addr.ip));
      else for (const p of ports) all.push(`${String(addr.ip)}:${String(p.port)}`);
    }
  }
  if (all.length === 0) return '<none>';
  return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
}

export const endpoints = defineResource({
  group: '',
  version: 'v1',
  resource: 'endpoints',
  singular: 'endpoints',
  kind: 'Endpoints',
  namespaced: true,
  shortNames: ['ep'],
  storagePath: 'services/endpoints',
  deprecationWarning: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
  strategy: strategy({
    allowCreateOnUpdate: true,
    applyDefaults: (ep) => {
      for (const ss of subsets(ep)) for (const p of list(ss.ports)) p.protocol ??= 'TCP';
    },
  }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'Endpoints', type: 'string', description: 'The set of all endpoints is the union of all subsets.', cell: formatEndpoints },
    AGE_COLUMN,
  ],
});
