import type { SharedInformers } from '../../controllers/runtime/shared-informers';
import { BOOTSTRAP_CLUSTER_ROLES } from '../authorizer/bootstrap-policy';
import { rulesOf } from '../authorizer/rbac-objects';
import { NodeGraph } from './graph';
import { GraphPopulator, type GraphSources } from './graph-populator';
import { NodeAuthorizer } from './node-authorizer';

/** bootstrappolicy.NodeRules: what every node may do beyond the graph, the system:node role's rules. */
function nodeRules() {
  return rulesOf(BOOTSTRAP_CLUSTER_ROLES.find((role) => role.metadata.name === 'system:node')!);
}

/** The Node mode: its graph filled from the shared informers before the first request is authorized. */
export async function startNodeAuthorization(sources: GraphSources, informers: SharedInformers): Promise<{ authorizer: NodeAuthorizer; stop(): void }> {
  const graph = new NodeGraph();
  const populator = new GraphPopulator(graph, sources, informers);
  await populator.start();
  return { authorizer: new NodeAuthorizer(graph, nodeRules()), stop: () => populator.stop() };
}
