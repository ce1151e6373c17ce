import type { UserInfo } from '../user';

const NODE_USER_PREFIX = 'system:node:';
/** user.NodesGroup */
export const NODES_GROUP = 'system:nodes';

/**
 * nodeidentifier.NewDefaultNodeIdentifier: a user named system:node:<name> in the
 * system:nodes group is node <name> (possibly '', a node that cannot be told).
 */
export function nodeIdentity(user: UserInfo): { isNode: false } | { isNode: true; nodeName: string } {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return { isNode: false };
  return { isNode: true, nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}
