import type { ReplicaSet } from '../../generated/types/apps/v1';
import type { ReplicationController } from '../../generated/types/core/v1';
import { selectorMatcher } from '../pods/selector';

/** A ReplicaSet or a ReplicationController: the same controller keeps both (kube's RC manager is the ReplicaSet controller). */
export type Replicated = ReplicaSet | ReplicationController;

/** What differs between the two kinds for the controller. */
export interface ReplicatedKind {
  /** The controller's name, as kube-controller-manager's --controllers names it. */
  controllerName: string;
  /** The source component of its events. */
  component: string;
  group: string;
  version: string;
  resource: string;
  apiVersion: string;
  kind: string;
  /** ReplicaSetControllerFeatures.EnableStatusTerminatingReplicas: the kind's status has terminatingReplicas. */
  hasTerminatingReplicas: boolean;
  matcher(set: Replicated): (labels: Record<string, string> | undefined) => boolean;
}

export const REPLICA_SET_KIND: ReplicatedKind = {
  controllerName: 'replicaset-controller',
  component: 'replicaset-controller',
  group: 'apps',
  version: 'v1',
  resource: 'replicasets',
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  hasTerminatingReplicas: true,
  matcher: (set) => selectorMatcher((set as ReplicaSet).spec?.selector),
};

/** A ReplicationController's selector is a plain label map; an empty one selects nothing (kube's RC defaulting fills it from the template). */
export const REPLICATION_CONTROLLER_KIND: ReplicatedKind = {
  controllerName: 'replicationcontroller-controller',
  component: 'replication-controller',
  group: '',
  version: 'v1',
  resource: 'replicationcontrollers',
  apiVersion: 'v1',
  kind: 'ReplicationController',
  hasTerminatingReplicas: false,
  matcher: (set) => {
    const selector = (set as ReplicationController).spec?.selector ?? {};
    return Object.keys(selector).length === 0 ? () => false : selectorMatcher({ matchLabels: selector });
  },
};
