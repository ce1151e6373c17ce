import { badRequest } from '../api/errors';
import { isPlainObject } from '../api/types';
import { defineComputedResource } from '../registry/resource-definition';

/**
 * What the requesting user may do in a namespace, from the authorizer's rule resolvers
 * (pkg/registry/authorization/selfsubjectrulesreview). kube-apiserver answers with a new object,
 * so the request's spec and metadata are not echoed.
 */
export const selfsubjectrulesreviews = defineComputedResource({
  group: 'authorization.k8s.io',
  version: 'v1',
  resource: 'selfsubjectrulesreviews',
  kind: 'SelfSubjectRulesReview',
  namespaced: false,
  compute: async ({ ctx, object }) => {
    const namespace = isPlainObject(object.spec) ? object.spec.namespace : undefined;
    if (typeof namespace !== 'string' || namespace === '') throw badRequest('no namespace on request');
    const rules = ctx.authorizer.rulesFor(ctx.user, namespace);
    const status: Record<string, unknown> = {
      resourceRules: rules.resourceRules.map((r) => {
        const rule: Record<string, unknown> = { verbs: r.verbs };
        if (r.apiGroups.length > 0) rule.apiGroups = r.apiGroups;
        if (r.resources.length > 0) rule.resources = r.resources;
        if (r.resourceNames.length > 0) rule.resourceNames = r.resourceNames;
        return rule;
      }),
      nonResourceRules: rules.nonResourceRules.map((r) =>
        r.nonResourceURLs.length > 0 ? { verbs: r.verbs, nonResourceURLs: r.nonResourceURLs } : { verbs: r.verbs },
      ),
      incomplete: rules.incomplete,
    };
    if (rules.error) status.evaluationError = rules.error;
    return { metadata: {}, spec: {}, status };
  },
});
