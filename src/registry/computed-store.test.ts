import type { KubeObject } from '../api/types';
import { ComputedStore } from './computed-store';
import { defineComputedResource } from './resource-definition';
import { systemContext, SERVER_OWN_WRITE } from './request-context';
import type { ServerServices } from './types';

const at = (namespace: string) => systemContext({ namespace }, SERVER_OWN_WRITE);

const NO_SERVICES = {} as ServerServices;

const echo = (namespaced: boolean) =>
  new ComputedStore(
    defineComputedResource({
      group: 'example.com',
      version: 'v1',
      resource: 'probes',
      kind: 'Probe',
      namespaced,
      compute: async ({ object }) => ({ ...object, status: { ok: true } }),
    }),
    NO_SERVICES,
  );

const probe = (namespace?: string): KubeObject =>
  ({ apiVersion: 'example.com/v1', kind: 'Probe', metadata: namespace ? { namespace } : {}, spec: { a: 1 } }) as KubeObject;

describe('ComputedStore', () => {
  test('answers with the computed object in wire order, with a null creation time', async () => {
    const answer = await echo(false).create(at(''), probe(), { dryRun: false });
    expect(answer).toEqual({ kind: 'Probe', apiVersion: 'example.com/v1', metadata: { creationTimestamp: null }, spec: { a: 1 }, status: { ok: true } });
    expect(Object.keys(answer)).toEqual(['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  });

  test('reconciles namespaces as the create handler does', async () => {
    expect(((await echo(true).create(at('ns'), probe(), { dryRun: false })) as KubeObject).metadata.namespace).toBe('ns');
    expect(((await echo(false).create(at(''), probe('ns'), { dryRun: false })) as KubeObject).metadata.namespace).toBeUndefined();
    await expect(echo(true).create(at('ns'), probe('other'), { dryRun: false })).rejects.toMatchObject({ code: 400 });
  });

  test('a definition without compute is refused', () => {
    expect(() => new ComputedStore({ ...echo(false).def, compute: undefined }, NO_SERVICES)).toThrow('needs compute');
  });
});
