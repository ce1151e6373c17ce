import type { UserInfo } from '../user';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, PolicyRule, RuleResolver, RulesForResult } from '../authorizer/attributes';
import { ruleAllows } from '../authorizer/rule-match';
import type { NodeGraph, VertexType } from './graph';
import { nodeIdentity } from './node-identity';

/** The node namespace of leases (api.NamespaceNodeLease). */
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const ALLOW: AuthorizationResult = { decision: 'Allow', reason: '' };
const noOpinion = (reason: string): AuthorizationResult => ({ decision: 'NoOpinion', reason });

/** The field selector asks for exactly `value` of `field` (a scoped list or watch). */
const selects = (attrs: AuthorizationAttributes, field: string, value: string): boolean =>
  (attrs.fieldSelector ?? []).some((r) => r.field === field && r.operator === '=' && r.value === value);

/**
 * The Node authorizer (plugin/pkg/auth/authorizer/node/node_authorizer.go, with the
 * AuthorizeNodeWithSelectors behaviour of 1.34): a kubelet reads the secrets, config maps,
 * claims, volumes and service account tokens of pods bound to its node, writes its own Node,
 * Lease and CSINode; everything else it may do is the system:node role's rules. Where it does not
 * allow it has no opinion, so the next mode (RBAC) may.
 */
export class NodeAuthorizer implements Authorizer, RuleResolver {
  constructor(
    private readonly graph: NodeGraph,
    private readonly nodeRules: readonly PolicyRule[],
  ) {}

  /** RulesFor: a node's rights cannot be enumerated. */
  rulesFor(user: UserInfo): RulesForResult {
    const empty = { resourceRules: [], nonResourceRules: [] };
    if (!nodeIdentity(user).isNode) return { ...empty, incomplete: false };
    return { ...empty, incomplete: true, error: 'node authorizer does not support user rule resolution' };
  }

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    const identity = nodeIdentity(attrs.user);
    if (!identity.isNode) return noOpinion('');
    const node = identity.nodeName;
    if (!node) return noOpinion(`unknown node for user ${JSON.stringify(attrs.user.name)}`);
    if (attrs.resourceRequest) {
      const decided = this.authorizeResource(node, attrs);
      if (decided) return decided;
    }
    return this.nodeRules.some((rule) => ruleAllows(attrs, rule)) ? ALLOW : noOpinion('');
  }

  /** The resources the authorizer subdivides; undefined for the others (the static rules decide). */
  private authorizeResource(node: string, attrs: AuthorizationAttributes): AuthorizationResult | undefined {
    switch (`${attrs.apiGroup}/${attrs.resource}`) {
      case '/secrets':
        return this.readNamespaced(node, 'secret', attrs);
      case '/configmaps':
        return this.readNamespaced(node, 'configmap', attrs);
      case '/persistentvolumeclaims':
        return attrs.subresource === 'status' ? this.statusUpdate(node, 'pvc', attrs) : this.get(node, 'pvc', attrs);
      case '/persistentvolumes':
        return this.get(node, 'pv', attrs);
      case 'resource.k8s.io/resourceclaims':
        return this.get(node, 'resourceclaim', attrs);
      case 'storage.k8s.io/volumeattachments':
        return this.get(node, 'volumeattachment', attrs);
      case '/serviceaccounts':
        return this.createToken(node, attrs);
      case 'coordination.k8s.io/leases':
        return this.ownNamed(node, attrs, 'a node lease', 'node lease', NODE_LEASE_NAMESPACE);
      case 'storage.k8s.io/csinodes':
        if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
        if (attrs.subresource) return noOpinion('cannot authorize CSINode subresources');
        return this.ownNamed(node, attrs, 'a CSINode', 'CSINode');
      case 'resource.k8s.io/resourceslices':
        return this.resourceSlice(node, attrs);
      case '/nodes':
        return this.nodeObject(node, attrs);
      case '/pods':
        return this.pod(node, attrs);
      default:
        return undefined;
    }
  }

  /** authorizeStatusUpdate */
  private statusUpdate(node: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'update' && attrs.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, type, attrs);
  }

  /** authorizeGet */
  private get(node: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource) return noOpinion('cannot get subresource');
    return this.related(node, type, attrs);
  }

  /** authorizeReadNamespacedObject */
  private readNamespaced(node: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'list', 'watch'].includes(attrs.verb)) return noOpinion('can only read resources of this type');
    if (attrs.subresource) return noOpinion('cannot read subresource');
    if (!attrs.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, attrs);
  }

  /** authorize: allowed when the graph leads from the named object to the node. */
  private related(node: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!attrs.name) return noOpinion('No Object name found');
    return this.graph.hasPathFrom(node, type, attrs.namespace, attrs.name) ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  }

  /** authorizeCreateToken */
  private createToken(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'create' || !attrs.name) return noOpinion('can only create tokens for individual service accounts');
    if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(node, 'serviceaccount', attrs);
  }

  /**
   * authorizeLease and authorizeCSINode: the object named as the node (on create NodeRestriction
   * checks the name, which the authorizer does not know).
   */
  private ownNamed(node: string, attrs: AuthorizationAttributes, what: string, kind: string, namespace?: string): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) return noOpinion(`can only get, create, update, patch, or delete ${what}`);
    if (namespace !== undefined && attrs.namespace !== namespace)
      return noOpinion(`can only access leases in the ${JSON.stringify(namespace)} system namespace`);
    if (attrs.verb !== 'create' && attrs.name !== node) return noOpinion(`can only access ${kind} with the same name as the requesting node`);
    return ALLOW;
  }

  /** authorizeResourceSlice: creation is NodeRestriction's to check; other writes follow the graph; lists need the node's field selector. */
  private resourceSlice(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.subresource) return noOpinion('cannot authorize ResourceSlice subresources');
    switch (attrs.verb) {
      case 'create':
        return ALLOW;
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return this.related(node, 'resourceslice', attrs);
      case 'watch':
      case 'list':
      case 'deletecollection':
        return selects(attrs, 'nodeName', node) ? ALLOW : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  /** authorizeNode: writes are NodeRestriction's to confine; reads only of its own Node, by name. */
  private nodeObject(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.subresource === '') {
      if (['create', 'update', 'patch'].includes(attrs.verb)) return ALLOW;
      if (['get', 'list', 'watch'].includes(attrs.verb)) {
        if (attrs.name === node) return ALLOW;
        if (!attrs.name) return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${node}' cannot read '${attrs.name}', only its own Node object`);
      }
    } else if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) {
      return ALLOW;
    }
    return noOpinion('');
  }

  /** authorizePod: reads of its pods (a list or watch scoped to spec.nodeName); mirror pods, status and evictions are NodeRestriction's to confine. */
  private pod(node: string, attrs: AuthorizationAttributes): AuthorizationResult {
    switch (attrs.subresource) {
      case '':
        if (attrs.verb === 'get') return this.get(node, 'pod', attrs);
        if (attrs.verb === 'list' || attrs.verb === 'watch') {
          if (selects(attrs, 'spec.nodeName', node)) return ALLOW;
          if (attrs.name) return this.related(node, 'pod', attrs);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        if (attrs.verb === 'create' || attrs.verb === 'delete') return ALLOW;
        break;
      case 'status':
        if (attrs.verb === 'update' || attrs.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (attrs.verb === 'create') return ALLOW;
        break;
    }
    return noOpinion('');
  }
}
