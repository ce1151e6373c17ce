import type { ServiceAccountTokens } from '../auth/service-account-tokens';
import type { UserInfo } from '../auth/user';
import type { GenericStore } from './generic-store';
import type { KubeletClientConfig } from './proxy/kubelet';

/**
 * What answers that are not plain stored writes (computed resources, create subresources) may use
 * beyond their request: other resources' stores and the service account token issuer.
 */
export interface ServerServices {
  /** The store of a built-in resource; throws when it is not served. */
  store(group: string, resource: string): GenericStore;
  tokens: ServiceAccountTokens;
  /** TokenReview: the token as the API server's bearer token authenticators judge it. */
  reviewToken(token: string, audiences: string[]): Promise<{ user: UserInfo; audiences: string[] } | { error: string }>;
  /** The storage's health check (componentstatuses' etcd-0): throws when etcd does not answer. */
  etcdHealth(): Promise<void>;
  /** How kubelets are reached (pods/log, exec, attach, portforward; nodes/proxy). */
  kubelet: KubeletClientConfig;
}
