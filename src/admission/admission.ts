import type { AdmissionAttributes, WriteAdmission } from '../registry/admission-hooks';

export type { AdmissionAttributes, AdmissionOperation } from '../registry/admission-hooks';

/**
 * One admission plugin; it throws a StatusError to refuse. `admit` is its mutating part (it may
 * change attrs.object), `validate` its validating part, as kube's MutationInterface and
 * ValidationInterface.
 */
export interface AdmissionPlugin {
  readonly name: string;
  admit?(attrs: AdmissionAttributes): Promise<void>;
  validate?(attrs: AdmissionAttributes): Promise<void>;
}

/** Runs every plugin's mutating part in order, then (called again after the strategy) every validating part; the first refusal wins. */
export class AdmissionChain implements WriteAdmission {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  async mutate(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) await plugin.admit?.(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) await plugin.validate?.(attrs);
  }
}
