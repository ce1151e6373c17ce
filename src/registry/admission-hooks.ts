import type { GroupVersionKind, KubeObject } from '../api/types';
import type { UserInfo } from '../auth/user';
import type { RequestContext } from './request-context';
import type { ResourceDefinition } from './resource-definition';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What admission is told about one write, as k8s.io/apiserver's admission.Attributes. */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  def: ResourceDefinition;
  namespace: string;
  name: string;
  subresource: string;
  /** The kind of `object` and `oldObject` (a subresource may have its own: Scale, Binding, TokenRequest). */
  kind: GroupVersionKind;
  /** The incoming object (CREATE, UPDATE); mutating plugins change it in place. */
  object?: KubeObject;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: KubeObject;
  /** The operation's options as the wire has them: CreateOptions, UpdateOptions or DeleteOptions. */
  options: Record<string, unknown>;
  dryRun: boolean;
  user: UserInfo;
  /** The request: its deadline and abort signal (a webhook call must not outlive them), warnings, audit annotations. */
  request: RequestContext;
}

/**
 * Admission as the store calls it, once it knows what a write is (CREATE or UPDATE, the old
 * object): mutation before the kind's strategy, validation after it, as kube's Store runs the
 * createValidation/updateValidation callbacks its handlers give it. Either throws a StatusError to refuse.
 */
export interface WriteAdmission {
  mutate(attrs: AdmissionAttributes): Promise<void>;
  validate(attrs: AdmissionAttributes): Promise<void>;
}
