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
  compute: ({ ctx, object, dryRun, services }) => bindPod(ctx, services.store('', 'pods'), object.metadata.name ?? '', object, dryRun),
});
