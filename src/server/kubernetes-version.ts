import { API_KUBERNETES_VERSION } from '../generated/api-facts';

/** The Kubernetes release kapi serves as: the one its API facts are pinned at (scripts/gen-api-facts.ts, PINNED_TAG). */
export const KUBERNETES_VERSION: { readonly major: string; readonly minor: string; readonly patch: string } = API_KUBERNETES_VERSION;

/** version.Info's gitVersion of kapi, and the kubeletVersion of its simulated nodes. */
export const kapiGitVersion = (): string => `v${KUBERNETES_VERSION.major}.${KUBERNETES_VERSION.minor}.${KUBERNETES_VERSION.patch}+kapi`;
