import type { KubeObject } from '../api/types';
import type { ResourceDefinition } from '../registry/resource-definition';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  def: ResourceDefinition;
  namespace: string;
  name: string;
  subresource: string;
  /** The incoming object (CREATE, UPDATE); plugins that mutate change it in place. */
  object?: KubeObject;
  dryRun: boolean;
}

/** One admission plugin; it throws a StatusError to refuse. */
export interface AdmissionPlugin {
  readonly name: string;
  admit(attrs: AdmissionAttributes): Promise<void>;
}

/** Runs plugins in order; the first refusal wins. */
export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const plugin of this.plugins) await plugin.admit(attrs);
  }
}
