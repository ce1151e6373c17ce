import { defineComputedResource } from '../registry/resource-definition';
import { bindPod } from './pod-binding';

/**
 * The legacy collection of Bindings (LegacyBindingREST): POST binds the pod the Binding names, as
 * pods/binding does; nothing is stored or listed.
 */
export const bindings = defineComputedResource({
  group: '',
  version: 'v1',
  resource: 'bindings',
  kind: 'Binding',
  namespaced: true,
  compute: ({ namespace, object, dryRun, services }) => bindPod(services.store('', 'pods'), namespace, object.metadata.name ?? '', object, dryRun),
});
