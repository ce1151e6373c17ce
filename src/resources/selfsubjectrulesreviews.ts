import { badRequest } from '../api/errors';
import { isPlainObject } from '../api/types';
import { defineComputedResource } from '../registry/resource-definition';

/**
 * What the requesting user may do in a namespace. On kapi's insecure port that is everything:
 * every verb on every resource of every group, and every non-resource URL. kube-apiserver answers
 * with a new object, so the request's spec and metadata are not echoed.
 */
export const selfsubjectrulesreviews = defineComputedResource({
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'selfsubjectrulesreviews',
  kind: 'SelfSubjectRulesReview',
  namespaced: false,
  compute: async ({ object }) => {
    const namespace = isPlainObject(object.spec) ? object.spec.namespace : undefined;
    if (typeof namespace !== 'string' || namespace === '') throw badRequest('no namespace on request');
    return {
      metadata: {},
      spec: {},
      status: {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      },
    };
  },
});
