import type { KubeObject } from '../api/types';
import { AdmissionChain, type AdmissionAttributes, type AdmissionPlugin } from './admission';
import { MutatorReinvocation, type ReinvocationContext } from './reinvocation';

/** A mutator of the chain: `changes` says, per call, whether it sets a label (a new value each time). */
function mutator(name: string, log: string[], changes: (call: number) => boolean): AdmissionPlugin {
  let calls = 0;
  return {
    name,
    admit: async (attrs: AdmissionAttributes, context: ReinvocationContext) => {
      const call = calls++;
      log.push(`${name}${context.isReinvoke ? ' again' : ''}`);
      if (!changes(call)) return;
      attrs.object!.metadata.labels = { ...attrs.object!.metadata.labels, [name]: String(call) };
      context.setShouldReinvoke();
    },
  };
}

/** A dispatcher with IfNeeded mutators `a`, `b`, ... whose changes are given by name. */
function dispatcher(name: string, log: string[], hooks: { key: string; ifNeeded: boolean; changes: boolean }[]): AdmissionPlugin {
  return {
    name,
    admit: async (attrs, context) => {
      const state = MutatorReinvocation.begin(context, name, attrs.object);
      for (const hook of hooks) {
        if (state.skips(hook.key)) continue;
        log.push(`${name}/${hook.key}${context.isReinvoke ? ' again' : ''}`);
        if (hook.changes) attrs.object!.metadata.annotations = { ...attrs.object!.metadata.annotations, [hook.key]: String(log.length) };
        state.invoked(hook.key, hook.changes, hook.ifNeeded);
      }
      state.end(attrs.object);
    },
  };
}

const attrs = (): AdmissionAttributes => ({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } as KubeObject }) as AdmissionAttributes;

test('without a change asked for, the chain runs once', async () => {
  const log: string[] = [];
  await new AdmissionChain([mutator('builtin', log, () => false), dispatcher('hooks', log, [{ key: 'a', ifNeeded: true, changes: false }])]).mutate(attrs());
  expect(log).toEqual(['builtin', 'hooks/a']);
});

test('a change runs every built-in plugin again, and only the IfNeeded mutators that ran before it; never a third pass', async () => {
  const log: string[] = [];
  const hooks = [
    { key: 'a', ifNeeded: true, changes: false },
    { key: 'never', ifNeeded: false, changes: false },
    { key: 'b', ifNeeded: true, changes: true },
  ];
  await new AdmissionChain([mutator('builtin', log, () => true), dispatcher('hooks', log, hooks)]).mutate(attrs());
  // b's change makes a due (not b itself); the built-in plugin's change in the second pass makes b due as well (it changed the object after b ran).
  expect(log).toEqual(['builtin', 'hooks/a', 'hooks/never', 'hooks/b', 'builtin again', 'hooks/a again', 'hooks/b again']);
});

test('in the second pass, a dispatcher whose object nothing changed since its first pass calls only those due', async () => {
  const log: string[] = [];
  const first = dispatcher('first', log, [{ key: 'p', ifNeeded: true, changes: false }]);
  const second = dispatcher('second', log, [
    { key: 'w', ifNeeded: true, changes: false },
    { key: 'x', ifNeeded: false, changes: true },
  ]);
  await new AdmissionChain([first, second]).mutate(attrs());
  // x changed the object after p and w ran: p (the object differs from what it left) and w (due) run again; x does not.
  expect(log).toEqual(['first/p', 'second/w', 'second/x', 'first/p again', 'second/w again']);
});

test('a mutator that changed nothing after the last change is not due', async () => {
  const log: string[] = [];
  const policies = dispatcher('policies', log, [{ key: 'p', ifNeeded: true, changes: true }]);
  const hooks = dispatcher('hooks', log, [{ key: 'w', ifNeeded: true, changes: false }]);
  await new AdmissionChain([policies, hooks]).mutate(attrs());
  // p's change asked for a second pass; nothing changed after p or w, so neither runs again.
  expect(log).toEqual(['policies/p', 'hooks/w']);
});
