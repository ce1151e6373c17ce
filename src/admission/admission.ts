import type { AdmissionAttributes, WriteAdmission } from '../registry/types';
import { ReinvocationContext } from './reinvocation';

export type { AdmissionAttributes, AdmissionOperation } from '../registry/types';

/**
 * One admission plugin; it throws a StatusError to refuse. `admit` is its mutating part (it may
 * change attrs.object), `validate` its validating part, as kube's MutationInterface and
 * ValidationInterface. `reinvocation` is the chain run's admission.ReinvocationContext. A part
 * that has nothing to do for a request returns at once, without a promise: most plugins concern a
 * few kinds, and every write runs the whole chain.
 */
export interface AdmissionPlugin {
  readonly name: string;
  admit?(attrs: AdmissionAttributes, reinvocation: ReinvocationContext): Promise<void> | void;
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

/**
 * Runs every plugin's mutating part in order, then (called again after the strategy) every
 * validating part; the first refusal wins. When a mutator asked for it, every mutating part runs
 * once more (k8s.io/apiserver's reinvoker.Admit): the built-in plugins all, the dispatchers only
 * their mutators with reinvocationPolicy IfNeeded that ran before a change.
 */
export class AdmissionChain implements WriteAdmission {
  /** The plugins with a mutating part, and those with a validating part: a write awaits only these. */
  private readonly mutators: AdmissionPlugin[];
  private readonly validators: AdmissionPlugin[];

  constructor(plugins: AdmissionPlugin[]) {
    this.mutators = plugins.filter((p) => p.admit);
    this.validators = plugins.filter((p) => p.validate);
  }

  async mutate(attrs: AdmissionAttributes): Promise<void> {
    const reinvocation = new ReinvocationContext();
    await this.mutateOnce(attrs, reinvocation);
    if (!reinvocation.shouldReinvoke) return;
    reinvocation.setIsReinvoke();
    await this.mutateOnce(attrs, reinvocation);
  }

  private async mutateOnce(attrs: AdmissionAttributes, reinvocation: ReinvocationContext): Promise<void> {
    for (const plugin of this.mutators) {
      const pending = plugin.admit!(attrs, reinvocation);
      if (pending) await pending;
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.validators) {
      const pending = plugin.validate!(attrs);
      if (pending) await pending;
    }
  }
}
