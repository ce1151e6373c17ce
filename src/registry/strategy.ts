import { nameIsDnsSubdomain } from '../api/name-validation';
import type { KubeObject } from '../api/types';
import { KNOWN_FEATURE_GATES } from '../server/feature-gates';
import type { ValidationOptions, Strategy } from './types';

export type { ValidationOptions, Strategy } from './types';

export const DEFAULT_VALIDATION_OPTIONS: ValidationOptions = { allowLoopbackEndpoints: false, featureGates: KNOWN_FEATURE_GATES };

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
  warningsOnCreate: () => [],
  warningsOnUpdate: () => [],
  warningsOnStatusUpdate: () => [],
  canonicalize: () => undefined,
  gracePeriodSeconds: () => null,
  finalizing: () => false,
  garbageCollectionPolicy: 'DeleteDependents',
  startTermination: null,
  annotationsThroughStatus: false,
  subresourceStrategies: {},
};

/** A kind's strategy: its own hooks over the defaults, which accept any object. */
export function strategy<T extends KubeObject = KubeObject>(overrides: Partial<Strategy<T>>): Strategy<T> {
  return { ...defaultStrategy, ...overrides };
}
