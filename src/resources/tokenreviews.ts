import { badRequest } from '../api/errors';
import { isPlainObject } from '../api/types';
import { defineComputedResource } from '../registry/resource-definition';

/**
 * Token authentication for webhooks and proxies. kapi issues and knows no tokens, so no token is
 * authenticated; the answer is the request with its status filled in, as kube-apiserver's.
 */
export const tokenreviews = defineComputedResource({
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'tokenreviews',
  kind: 'TokenReview',
  namespaced: false,
  compute: ({ object }) => {
    const token = isPlainObject(object.spec) ? object.spec.token : undefined;
    if (typeof token !== 'string' || token === '') throw badRequest('token is required for TokenReview in authentication');
    // authenticated is omitempty in Go, so false is not written; user is a struct, written even when empty.
    return { ...object, status: { user: {}, error: 'kapi authenticates no tokens: its insecure port is its only listener' } };
  },
});
