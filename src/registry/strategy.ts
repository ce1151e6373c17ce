import type { FieldErrorList } from '../api/field-errors';
import { nameIsDnsSubdomain, type NameValidator } from '../api/name-validation';
import type { KubeObject } from '../api/types';
import type { GarbageCollectionPolicy, PropagationOptions } from './deletion-finalizers';
import type { RequestContext } from './request-context';

/** What validation learns from the server's flags (kube passes them in each strategy's constructor). */
export interface ValidationOptions {
  /** --allow-loopback-endpoints: Endpoints and EndpointSlices may name 127.0.0.0/8 and ::1. */
  allowLoopbackEndpoints: boolean;
}

export const DEFAULT_VALIDATION_OPTIONS: ValidationOptions = { allowLoopbackEndpoints: false };

/**
 * What one kind adds to the generic store. The store always runs the hooks in the same order —
 * prepare, default, validate, canonicalize — so no kind can skip a step. The create, update and
 * status hooks take the request's context last (kube's strategies take it first), so that a check
 * which needs the requester (RBAC escalation, a CSR's requesting user) reads it there.
 */
export interface Strategy {
  /** The rule for metadata.name (and generateName). */
  validateName: NameValidator;
  /**
   * Objects are validated by core's ValidateObjectMeta, which allows only the standard finalizer
   * names without a domain; CRDs and custom resources get apimachinery's, which allows any qualified name.
   */
  kubeFinalizerNames: boolean;
  /** PUT of an absent object creates it. */
  allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion overwrites whatever is stored. */
  allowUnconditionalUpdate: boolean;
  /** metadata.generation starts at 1 and grows with every change of the spec. */
  tracksGeneration: boolean;
  /** Clears what a client may not set on create (e.g. status). */
  prepareForCreate(obj: KubeObject, ctx: RequestContext): void;
  /** Restores what a client may not change on update (e.g. status through the main resource). */
  prepareForUpdate(next: KubeObject, prev: KubeObject, ctx: RequestContext): void;
  /** What the status strategy's PrepareForUpdate adds to a write through /status (e.g. a phase's transition time). */
  prepareForStatusUpdate(next: KubeObject, prev: KubeObject, ctx: RequestContext): void;
  /** Fills in defaults, as the versioned defaulting functions do. */
  applyDefaults(obj: KubeObject): void;
  validate(obj: KubeObject, options: ValidationOptions): FieldErrorList;
  /** Rules only a create must satisfy, beyond `validate` (events.k8s.io/v1's new-style Events). */
  validateCreate(obj: KubeObject, ctx: RequestContext): FieldErrorList;
  validateUpdate(next: KubeObject, prev: KubeObject, ctx: RequestContext): FieldErrorList;
  /**
   * The status strategy's ValidateUpdate (kube's ValidateXStatusUpdate), beyond metadata: what a
   * write through /status must satisfy. The main rules do not run there.
   */
  validateStatusUpdate(next: KubeObject, prev: KubeObject, ctx: RequestContext): FieldErrorList;
  /** Normalises the stored form (e.g. Secret stringData folded into data). */
  canonicalize(obj: KubeObject): void;
  /**
   * Graceful deletion (CheckGracefulDelete): seconds to wait before an object being deleted is
   * really removed, 0 removing it at once (pods on no node, for instance); null for kinds that are
   * never deleted gracefully. `requested` is the client's gracePeriodSeconds.
   */
  gracePeriodSeconds(obj: KubeObject, requested: number | undefined): number | null;
  /** Something besides metadata.finalizers holds the object after deletion starts (namespaces' spec.finalizers). */
  finalizing(obj: KubeObject): boolean;
  /** Whether deleting sets the garbage collector's finalizers (orphan, foregroundDeletion). */
  garbageCollectionPolicy: GarbageCollectionPolicy;
  /**
   * Kinds whose first delete only starts termination: the store sets deletionTimestamp and this
   * marks the rest (namespaces: phase Terminating; CRDs: the cleanup finalizer). The object goes
   * once nothing holds it.
   */
  startTermination: ((obj: KubeObject, opts: PropagationOptions) => void) | null;
  /**
   * A write through /status may change metadata.annotations too (Deployments: the deployment
   * controller records the revision annotation with UpdateStatus, whose strategy resets only
   * spec and labels).
   */
  annotationsThroughStatus: boolean;
}

/** Everything but metadata and status: what a status update must leave alone. */
export function specOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, kind: _k, apiVersion: _a, ...rest } = obj;
  return rest;
}

export const defaultStrategy: Strategy = {
  validateName: nameIsDnsSubdomain,
  kubeFinalizerNames: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  tracksGeneration: false,
  prepareForCreate: () => undefined,
  prepareForUpdate: () => undefined,
  prepareForStatusUpdate: () => undefined,
  applyDefaults: () => undefined,
  validate: () => [],
  validateCreate: () => [],
  validateUpdate: () => [],
  validateStatusUpdate: () => [],
  canonicalize: () => undefined,
  gracePeriodSeconds: () => null,
  finalizing: () => false,
  garbageCollectionPolicy: 'DeleteDependents',
  startTermination: null,
  annotationsThroughStatus: false,
};

export function strategy(overrides: Partial<Strategy>): Strategy {
  return { ...defaultStrategy, ...overrides };
}
