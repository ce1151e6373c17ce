import { badRequest } from '../api/errors';
import { isPlainObject, type KubeObject } from '../api/types';
import type { UserInfo } from '../auth/user';
import { defineComputedResource } from '../registry/resource-definition';

/** The user as TokenReview's status writes it (extra is omitempty). */
function reviewedUser(user: UserInfo): Record<string, unknown> {
  return { username: user.name, uid: user.uid, groups: user.groups, ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}) };
}

/**
 * Token authentication for webhooks and proxies: the token is judged by the API server's own
 * bearer token authenticators (static tokens, service account tokens) for the audiences asked
 * about (the API server's when none). The answer is the request with its status filled in, as
 * kube-apiserver's tokenreview REST.
 */
export const tokenreviews = defineComputedResource({
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'tokenreviews',
  kind: 'TokenReview',
  namespaced: false,
  compute: async ({ object, services }) => {
    const spec = isPlainObject(object.spec) ? object.spec : {};
    const token = spec.token;
    if (typeof token !== 'string' || token === '') throw badRequest('token is required for TokenReview in authentication');
    const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
    const result = await services.reviewToken(token, audiences);
    // authenticated is omitempty in Go, so false is not written; user is a struct, written even when empty.
    const status =
      'error' in result ? { user: {}, error: result.error } : { authenticated: true, user: reviewedUser(result.user), audiences: result.audiences };
    return { ...object, status } as KubeObject;
  },
});
