import { auditUser } from '../audit/event';
import { nowTimestamp } from '../registry/generic-store';
import { defineComputedResource } from '../registry/resource-definition';

/** Who the requesting user is (`kubectl auth whoami`): a new object, created now, as kube-apiserver answers. */
export const selfsubjectreviews = defineComputedResource({
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'selfsubjectreviews',
  kind: 'SelfSubjectReview',
  namespaced: false,
  compute: async ({ ctx }) => ({
    metadata: { creationTimestamp: nowTimestamp() },
    status: { userInfo: auditUser(ctx.user) },
  }),
});
