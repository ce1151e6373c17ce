import type { Api } from './http';

/** A minimal namespaced CRD: `<plural>.<group>`, one served and stored version v1, any fields. */
export function simpleCrd(group: string, plural: string, kind: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
}

export function isEstablished(crd: { status?: { conditions?: { type: string; status: string }[] } }): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}

/** Polls `probe` every 50 ms until it returns a value other than undefined; fails after `timeoutMs` naming `what`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Creates the CRD and resolves with the time it took to be reported Established. */
export async function createEstablished(api: Api, crd: Record<string, unknown>, timeoutMs = 20_000): Promise<number> {
  const started = Date.now();
  const created = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  if (created.status !== 201) throw new Error(`creating the CRD: ${created.status} ${created.text}`);
  const name = (crd.metadata as { name: string }).name;
  await eventually(
    `${name} Established`,
    async () => {
      const res = await api.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      return isEstablished(res.body) ? true : undefined;
    },
    timeoutMs,
  );
  return Date.now() - started;
}
