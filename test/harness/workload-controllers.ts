import type { Config } from '../../src/server/config';

/**
 * Without the controllers that would act on a test's hand-made Deployments, ReplicaSets and
 * their pods (as kube-controller-manager --controllers=*,-deployment-controller,...): for tests
 * of what the API alone does with such chains.
 */
export const WITHOUT_WORKLOAD_CONTROLLERS: Partial<Config> = {
  controllers: [
    '*',
    ...['deployment', 'replicaset', 'replicationcontroller', 'statefulset', 'daemonset', 'job', 'cronjob', 'horizontal-pod-autoscaler'].map(
      (name) => `-${name}-controller`,
    ),
  ],
};
