import { jsonEqual } from '../api/deep-equal';
import type { KubeObject } from '../api/types';
import { jsonClone } from '../api/json-clone';

/**
 * admission.ReinvocationContext: one per run of the mutating chain. A mutator that changes the
 * object asks for the chain to run again (once, k8s.io/apiserver's reinvoker.Admit); each plugin
 * keeps its own state here between the two passes.
 */
export class ReinvocationContext {
  private reinvoking = false;
  private wanted = false;
  private readonly values = new Map<string, unknown>();

  /** True during the second pass. */
  get isReinvoke(): boolean {
    return this.reinvoking;
  }

  get shouldReinvoke(): boolean {
    return this.wanted;
  }

  setShouldReinvoke(): void {
    this.wanted = true;
  }

  setIsReinvoke(): void {
    this.reinvoking = true;
  }

  /** A plugin's state, made on its first use. */
  value<T>(plugin: string, create: () => T): T {
    if (!this.values.has(plugin)) this.values.set(plugin, create());
    return this.values.get(plugin) as T;
  }
}

/**
 * What the mutating webhook and MutatingAdmissionPolicy dispatchers keep between the passes
 * (webhookReinvokeContext, policyReinvokeContext): the mutators with reinvocationPolicy IfNeeded
 * that ran before a change, which are the only ones the second pass calls.
 */
export class MutatorReinvocation {
  private lastOutput: KubeObject | undefined;
  private previouslyInvoked = new Set<string>();
  private readonly reinvoke = new Set<string>();

  constructor(private readonly context: ReinvocationContext) {}

  /** The plugin's state in `context`, and the start of its pass over `object`. */
  static begin(context: ReinvocationContext, plugin: string, object: KubeObject | undefined): MutatorReinvocation {
    const state = context.value(plugin, () => new MutatorReinvocation(context));
    // Something after the plugin's first pass changed the object (a later plugin, or the built-in
    // plugins run again): every IfNeeded mutator the plugin ran is due again.
    if (context.isReinvoke && !jsonEqual(state.lastOutput, object)) state.requirePreviouslyInvoked();
    return state;
  }

  /** During the second pass, only the mutators due again are called (never one called for the first time). */
  skips(key: string): boolean {
    return this.context.isReinvoke && !this.reinvoke.has(key);
  }

  /** After a mutator ran: a change makes those IfNeeded ones before it due and asks for a second pass. */
  invoked(key: string, changed: boolean, ifNeeded: boolean): void {
    if (changed) {
      this.requirePreviouslyInvoked();
      this.context.setShouldReinvoke();
    }
    if (ifNeeded) this.previouslyInvoked.add(key);
  }

  /**
   * The end of the plugin's pass: what it left, to tell whether anything after it changed the
   * object. Only a plugin that ran an IfNeeded mutator has anything a change could make due, so
   * only then is the object copied (kube copies it always; on every write that is a deep copy of
   * the object for nothing when no webhook or policy mutates).
   */
  end(object: KubeObject | undefined): void {
    this.lastOutput = object === undefined || this.previouslyInvoked.size === 0 ? undefined : jsonClone(object);
  }

  private requirePreviouslyInvoked(): void {
    for (const key of this.previouslyInvoked) this.reinvoke.add(key);
    this.previouslyInvoked = new Set();
  }
}
