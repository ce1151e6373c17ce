/** The Kubernetes release kapi serves as. */
export const KUBERNETES_VERSION = { major: '1', minor: '34', patch: '0' };

/** version.Info's gitVersion of kapi, and the kubeletVersion of its simulated nodes. */
export const kapiGitVersion = (): string => `v${KUBERNETES_VERSION.major}.${KUBERNETES_VERSION.minor}.${KUBERNETES_VERSION.patch}+kapi`;
