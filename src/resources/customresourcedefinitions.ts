import { isDeepStrictEqual } from 'node:util';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn as objs, stringOf as str, stringsIn as strs } from '../api/json-read';
import { isDns1035Label, isDns1123Subdomain, nameIsDnsSubdomain } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { badRequest } from '../api/errors';
import { celCostErrors, celRuleErrors } from '../schema/custom-cel-loader';
import type { JSONSchemaProps } from '../schema/json-schema-props';
import { normalizeSchemaNulls, schemaPropsDecodeError } from '../schema/json-schema-props-decode';
import { structuralTypeErrors } from '../schema/structural-types';
import { customResourceSchema } from '../schema/openapi-typed-schema';
import type { ObjectNode } from '../schema/typed-schema';
import { validateAcceptedNames, statusOf } from './status-validation';
import { validateWebhookClientConfig } from './webhook-client-config';

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinitions: stored, defaulted and validated as
 * kube-apiserver does. The CRD controller (controllers/crd-controller.ts) serves what they define.
 */

export const CRD_GROUP = 'apiextensions.k8s.io';
/** Held by a CRD from its first delete until every custom resource it defines is gone. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

type Obj = Record<string, unknown>;

export interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  /** `deprecated`, with its `deprecationWarning` when one is given. */
  deprecation: { warning: string | null } | null;
  schema: JSONSchemaProps | null;
  hasStatus: boolean;
  /** Field selector paths (".spec.color") the version serves. */
  selectableFields: string[];
  /** The scale subresource's JSON paths (".spec.replicas"), when the version has one. */
  scale: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath: string } | null;
  printerColumns: Obj[];
}

/** spec.conversion: None restamps apiVersion; Webhook calls the CRD's converter. */
export type CrdConversion = { strategy: 'None' } | { strategy: 'Webhook'; clientConfig: Obj; conversionReviewVersions: string[] };

/** The parts of a CRD the machinery reads, with absent fields at their Go zero values. */
export interface CrdView {
  name: string;
  group: string;
  scope: string;
  names: CrdNames;
  versions: CrdVersion[];
  conversion: CrdConversion;
}

function conversionOf(spec: Obj): CrdConversion {
  const conversion = isPlainObject(spec.conversion) ? spec.conversion : {};
  const webhook = isPlainObject(conversion.webhook) ? conversion.webhook : null;
  if (conversion.strategy !== 'Webhook' || !webhook) return { strategy: 'None' };
  return {
    strategy: 'Webhook',
    clientConfig: isPlainObject(webhook.clientConfig) ? webhook.clientConfig : {},
    conversionReviewVersions: strs(webhook.conversionReviewVersions),
  };
}

export function crdView(crd: KubeObject): CrdView {
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  const names = isPlainObject(spec.names) ? spec.names : {};
  return {
    name: crd.metadata.name ?? '',
    group: str(spec.group),
    scope: str(spec.scope),
    conversion: conversionOf(spec),
    names: {
      plural: str(names.plural),
      singular: str(names.singular),
      kind: str(names.kind),
      listKind: str(names.listKind),
      shortNames: strs(names.shortNames),
      categories: strs(names.categories),
    },
    versions: objs(spec.versions).map((v) => {
      const schema = isPlainObject(v.schema) && isPlainObject(v.schema.openAPIV3Schema) ? (v.schema.openAPIV3Schema as JSONSchemaProps) : null;
      const subresources = isPlainObject(v.subresources) ? v.subresources : {};
      const scale = isPlainObject(subresources.scale) ? subresources.scale : null;
      return {
        name: str(v.name),
        served: v.served === true,
        storage: v.storage === true,
        deprecation: v.deprecated === true ? { warning: typeof v.deprecationWarning === 'string' ? v.deprecationWarning : null } : null,
        schema,
        hasStatus: isPlainObject(subresources.status),
        selectableFields: objs(v.selectableFields).map((f) => str(f.jsonPath)),
        scale: scale && {
          specReplicasPath: str(scale.specReplicasPath),
          statusReplicasPath: str(scale.statusReplicasPath),
          labelSelectorPath: str(scale.labelSelectorPath),
        },
        printerColumns: objs(v.additionalPrinterColumns),
      };
    }),
  };
}

/** SetDefaults_CustomResourceDefinitionSpec, and the default port of a conversion webhook's service. */
function applyCrdDefaults(crd: KubeObject): void {
  const spec = (isPlainObject(crd.spec) ? crd.spec : (crd.spec = {})) as Obj;
  const names = (isPlainObject(spec.names) ? spec.names : (spec.names = {})) as Obj;
  if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
  if (!names.listKind && typeof names.kind === 'string' && names.kind) names.listKind = `${names.kind}List`;
  if (!isPlainObject(spec.conversion)) spec.conversion = { strategy: 'None' };
  const webhook = isPlainObject(spec.conversion) && isPlainObject(spec.conversion.webhook) ? spec.conversion.webhook : null;
  const service = webhook && isPlainObject(webhook.clientConfig) && isPlainObject(webhook.clientConfig.service) ? webhook.clientConfig.service : null;
  if (service && service.port === undefined) service.port = 443;
  for (const v of objs(spec.versions)) if (isPlainObject(v.schema) && isPlainObject(v.schema.openAPIV3Schema)) normalizeSchemaNulls(v.schema.openAPIV3Schema);
}

/** A schema of the wrong JSON types is a decode error in kube (400), found before any validation. */
function assertSchemasDecode(crd: KubeObject): void {
  for (const v of objs(isPlainObject(crd.spec) ? crd.spec.versions : undefined)) {
    const err = isPlainObject(v.schema) ? schemaPropsDecodeError(v.schema.openAPIV3Schema) : null;
    if (err) throw badRequest(`CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: ${err}`);
  }
}

function storageVersionOf(crd: KubeObject): string | undefined {
  return crdView(crd).versions.find((v) => v.storage)?.name;
}

/** PrepareForCreate: the status starts empty but for the storage version. */
function prepareCrdForCreate(crd: KubeObject): void {
  const storage = storageVersionOf(crd);
  crd.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage] : [] };
}

/** PrepareForUpdate: a new storage version joins the stored versions. */
function prepareCrdForUpdate(next: KubeObject): void {
  const storage = storageVersionOf(next);
  const status = (isPlainObject(next.status) ? next.status : (next.status = {})) as Obj;
  const stored = strs(status.storedVersions);
  if (storage && !stored.includes(storage)) status.storedVersions = [...stored, storage];
}

function dns1035(path: string, value: string, mixedCase = false): FieldErrorList {
  const errs = isDns1035Label(mixedCase ? value.toLowerCase() : value);
  if (errs.length === 0) return [];
  return [field.invalid(path, value, mixedCase ? `may have mixed case, but should otherwise match: ${errs.join(',')}` : errs.join(','))];
}

/** ValidateCustomResourceDefinitionNames, plus the names a spec must have. */
function validateNames(names: CrdNames): FieldErrorList {
  const errs: FieldErrorList = [];
  const path = 'spec.names';
  if (!names.plural) errs.push(field.required(`${path}.plural`));
  else errs.push(...dns1035(`${path}.plural`, names.plural));
  if (names.singular) errs.push(...dns1035(`${path}.singular`, names.singular));
  if (!names.kind) errs.push(field.required(`${path}.kind`));
  else errs.push(...dns1035(`${path}.kind`, names.kind, true));
  if (!names.listKind) errs.push(field.required(`${path}.listKind`));
  else errs.push(...dns1035(`${path}.listKind`, names.listKind, true));
  names.shortNames.forEach((s, i) => errs.push(...dns1035(`${path}.shortNames[${i}]`, s)));
  if (names.kind && names.kind === names.listKind) errs.push(field.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  names.categories.forEach((c, i) => errs.push(...dns1035(`${path}.categories[${i}]`, c)));
  return errs;
}

/** The root of a structural schema, and the syntax of its CEL rules; deeper structure is the custom resource validator's to read. */
function validateSchemaRoot(schema: JSONSchemaProps | null, path: string): FieldErrorList {
  if (!schema) return [field.required(`${path}.schema.openAPIV3Schema`, 'schemas are required')];
  const typePath = `${path}.schema.openAPIV3Schema.type`;
  if (!schema.type) return [field.required(typePath, 'must not be empty at the root')];
  if (schema.type !== 'object') return [field.invalid(typePath, schema.type, 'must be object at the root')];
  return [...structuralTypeErrors(schema, `${path}.schema.openAPIV3Schema`), ...celRuleErrors(schema, `${path}.schema.openAPIV3Schema`)];
}

/** ValidateCustomResourceDefinitionSubresources: scale paths are simple paths under .spec or .status. */
function validateScalePaths(scale: CrdVersion['scale'], path: string): FieldErrorList {
  if (!scale) return [];
  const at = `${path}.subresources.scale`;
  const errs: FieldErrorList = [];
  const check = (name: keyof NonNullable<CrdVersion['scale']>, prefixes: string[], message: string, required: boolean): void => {
    const value = scale[name];
    if (!value) {
      if (required) errs.push(field.required(`${at}.${name}`));
    } else if (!prefixes.some((p) => value.startsWith(p))) {
      errs.push(field.invalid(`${at}.${name}`, value, message));
    }
  };
  check('specReplicasPath', ['.spec.'], 'should be a json path under .spec', true);
  check('statusReplicasPath', ['.status.'], 'should be a json path under .status', true);
  check('labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status', false);
  return errs;
}

const MAX_SELECTABLE_FIELDS = 8;

/** The schema a simple path (".spec.color") leads to, if it leads anywhere. */
function schemaAt(schema: JSONSchemaProps | null, path: string): JSONSchemaProps | undefined {
  let at: JSONSchemaProps | undefined = schema ?? undefined;
  for (const name of path.split('.').slice(1)) at = at?.properties?.[name];
  return at;
}

/** validateSelectableFields: at most 8, distinct, each a string, integer or boolean field of the schema. */
function validateSelectableFields(version: CrdVersion, path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  const at = `${path}.selectableFields`;
  if (version.selectableFields.length > MAX_SELECTABLE_FIELDS) errs.push(field.tooMany(at, version.selectableFields.length, MAX_SELECTABLE_FIELDS));
  const seen = new Set<string>();
  version.selectableFields.forEach((jsonPath, i) => {
    const fieldPath = `${at}[${i}].jsonPath`;
    if (!jsonPath) {
      errs.push(field.required(fieldPath));
      return;
    }
    if (seen.has(jsonPath)) errs.push(field.duplicate(fieldPath, jsonPath));
    seen.add(jsonPath);
    const type = schemaAt(version.schema, jsonPath)?.type;
    if (!jsonPath.startsWith('.') || !type) errs.push(field.invalid(fieldPath, jsonPath, 'is an invalid path: does not refer to a valid field'));
    else if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
      errs.push(
        field.invalid(
          fieldPath,
          jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    }
  });
  return errs;
}

function validatePrinterColumns(columns: Obj[], path: string): FieldErrorList {
  const errs: FieldErrorList = [];
  columns.forEach((c, i) => {
    const at = `${path}.additionalPrinterColumns[${i}]`;
    if (!c.name) errs.push(field.required(`${at}.name`));
    const types = ['integer', 'number', 'string', 'boolean', 'date'];
    if (!types.includes(str(c.type))) errs.push(field.notSupported(`${at}.type`, str(c.type), types));
    if (!c.jsonPath) errs.push(field.required(`${at}.jsonPath`));
    else if (!str(c.jsonPath).startsWith('.')) errs.push(field.invalid(`${at}.jsonPath`, c.jsonPath, 'must be a simple json path starting with .'));
  });
  return errs;
}

/** ValidateCustomResourceDefinitionSpec: group, scope, names and versions. */
function validateCrd(crd: KubeObject): FieldErrorList {
  assertSchemasDecode(crd);
  const view = crdView(crd);
  const errs: FieldErrorList = [];
  const required = `${view.names.plural}.${view.group}`;
  if (view.name && view.name !== required) errs.push(field.invalid('metadata.name', view.name, 'must be spec.names.plural+"."+spec.group'));
  if (!view.group) errs.push(field.required('spec.group'));
  else if (isDns1123Subdomain(view.group).length > 0) errs.push(field.invalid('spec.group', view.group, isDns1123Subdomain(view.group).join(',')));
  else if (view.group.split('.').length < 2) errs.push(field.invalid('spec.group', view.group, 'should be a domain with at least one dot'));
  if (!view.scope) errs.push(field.required('spec.scope'));
  else if (view.scope !== 'Cluster' && view.scope !== 'Namespaced') errs.push(field.notSupported('spec.scope', view.scope, ['Cluster', 'Namespaced']));
  const seen = new Set<string>();
  let unique = true;
  view.versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    errs.push(...dns1035(`${path}.name`, v.name));
    errs.push(...validateSchemaRoot(v.schema, path));
    errs.push(...validatePrinterColumns(v.printerColumns, path));
    errs.push(...validateScalePaths(v.scale, path));
    errs.push(...validateSelectableFields(v, path));
  });
  const versions = (isPlainObject(crd.spec) ? crd.spec.versions : undefined) ?? [];
  if (!unique) errs.push(field.invalid('spec.versions', versions, 'must contain unique version names'));
  if (view.versions.filter((v) => v.storage).length !== 1)
    errs.push(field.invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  errs.push(...validateNames(view.names));
  return errs;
}

function established(crd: KubeObject): boolean {
  const conditions = isPlainObject(crd.status) ? objs(crd.status.conditions) : [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/**
 * kube's static cost limits on each version's CEL rules, estimated on a valid structural schema;
 * on update a version whose schema is unchanged is held to the CRD's total only
 * (validationOptions.suppressPerExpressionCost), so a CRD accepted before stays updatable.
 */
function celCostLimitErrors(crd: KubeObject, prev?: KubeObject): FieldErrorList {
  const before = new Map(prev ? crdView(prev).versions.map((v) => [v.name, v.schema]) : []);
  return crdView(crd).versions.flatMap((v, i) => {
    const at = `spec.versions[${i}].schema.openAPIV3Schema`;
    if (v.schema?.type !== 'object' || structuralTypeErrors(v.schema, at).length > 0) return [];
    const unchanged = before.has(v.name) && isDeepStrictEqual(before.get(v.name), v.schema);
    return celCostErrors(v.schema, at, !unchanged);
  });
}

/** The ConversionReview versions kapi and the API server before it speak (acceptedConversionReviewVersions). */
const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** validateConversionReviewVersions: required, DNS labels, no duplicates, and (unless the stored CRD had none) one the server speaks. */
function conversionReviewVersionErrors(versions: string[], requireRecognized: boolean, path: string): FieldErrorList {
  if (versions.length === 0) return [field.required(path)];
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(field.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDns1035Label(v)) errs.push(field.invalid(`${path}[${i}]`, v, msg));
  });
  if (requireRecognized && !versions.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v)))
    errs.push(field.invalid(path, versions, `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

/**
 * validateCustomResourceConversion, on the internal form v1 converts to (webhook.clientConfig is
 * webhookClientConfig, webhook.conversionReviewVersions is conversionReviewVersions, so the
 * errors name those paths as kube's do). The webhook's URL is the one every read of the kind
 * will dial: it must be an https URL of a host, or a Service, as for admission webhooks.
 */
function conversionErrors(crd: KubeObject, requireRecognizedReviewVersion: boolean): FieldErrorList {
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  if (!isPlainObject(spec.conversion)) return [];
  const path = 'spec.conversion';
  const strategy = str(spec.conversion.strategy);
  const webhook = isPlainObject(spec.conversion.webhook) ? spec.conversion.webhook : {};
  const clientConfig = webhook.clientConfig;
  const reviewVersions = strs(webhook.conversionReviewVersions);
  const errs: FieldErrorList = [];
  if (!strategy) errs.push(field.required(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(field.notSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  if (strategy === 'Webhook') {
    if (!isPlainObject(clientConfig)) errs.push(field.required(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    else errs.push(...validateWebhookClientConfig(clientConfig, `${path}.webhookClientConfig`));
    errs.push(...conversionReviewVersionErrors(reviewVersions, requireRecognizedReviewVersion, `${path}.conversionReviewVersions`));
    return errs;
  }
  if (isPlainObject(clientConfig)) errs.push(field.forbidden(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
  if (reviewVersions.length > 0) errs.push(field.forbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
  return errs;
}

/** ValidateCustomResourceDefinitionUpdate's option: a stored CRD without a recognized review version may keep it (hasValidConversionReviewVersionOrEmpty). */
function storedReviewVersionRecognized(prev: KubeObject): boolean {
  const conversion = isPlainObject(prev.spec) && isPlainObject(prev.spec.conversion) ? prev.spec.conversion : null;
  const versions = conversion && isPlainObject(conversion.webhook) ? strs(conversion.webhook.conversionReviewVersions) : [];
  return versions.length === 0 || versions.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v));
}

/** ValidateCustomResourceDefinitionUpdate: what storage depends on may not change. */
function validateCrdUpdate(next: KubeObject, prev: KubeObject): FieldErrorList {
  const now = crdView(next);
  const before = crdView(prev);
  const errs: FieldErrorList = [];
  const immutable = (path: string, a: string, b: string): void => {
    if (a !== b) errs.push(field.invalid(path, a, 'field is immutable'));
  };
  if (established(prev)) {
    immutable('spec.scope', now.scope, before.scope);
    immutable('spec.names.kind', now.names.kind, before.names.kind);
  }
  immutable('spec.group', now.group, before.group);
  immutable('spec.names.plural', now.names.plural, before.names.plural);
  return [...errs, ...celCostLimitErrors(next, prev), ...conversionErrors(next, storedReviewVersionRecognized(prev))];
}

/** Adds the cleanup finalizer and the Terminating condition, as the CRD registry's Delete does. */
function startCrdTermination(crd: KubeObject): void {
  const finalizers = crd.metadata.finalizers ?? [];
  if (!finalizers.includes(CLEANUP_FINALIZER)) crd.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
  setCrdCondition(crd, {
    type: 'Terminating',
    status: 'True',
    reason: 'InstanceDeletionPending',
    message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
  });
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** IsCRDConditionTrue. */
export function crdConditionTrue(crd: KubeObject, type: string): boolean {
  const status = isPlainObject(crd.status) ? crd.status : {};
  return objs(status.conditions).some((c) => c.type === type && c.status === 'True');
}

/** SetCRDCondition: replaces the condition of its type; the transition time moves only when the status does. */
export function setCrdCondition(crd: KubeObject, condition: CrdCondition): void {
  const status = (isPlainObject(crd.status) ? crd.status : (crd.status = {})) as Obj;
  const conditions = objs(status.conditions);
  const old = conditions.find((c) => c.type === condition.type);
  const time = old && old.status === condition.status ? old.lastTransitionTime : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next = { type: condition.type, status: condition.status, lastTransitionTime: time, reason: condition.reason, message: condition.message };
  status.conditions = old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
}

/**
 * The structure server-side apply and pruning need of a CRD: the spec's own fields, with the
 * version list atomic (as kube declares it) and the free-form parts kept whole.
 */
const CRD_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        group: { type: 'string' },
        names: {
          type: 'object',
          properties: {
            plural: { type: 'string' },
            singular: { type: 'string' },
            kind: { type: 'string' },
            listKind: { type: 'string' },
            shortNames: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
            categories: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
          },
        },
        scope: { type: 'string' },
        versions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'x-kubernetes-list-type': 'atomic' },
        conversion: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        preserveUnknownFields: { type: 'boolean' },
      },
    },
    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

let crdTypedSchema: ObjectNode | undefined;

// KubeObject: apiextensions.k8s.io has no generated interface (its types are not among k8s.io/api's protos).
export const customresourcedefinitions = defineResource<KubeObject>({
  group: CRD_GROUP,
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  subresources: ['status'],
  storagePath: `${CRD_GROUP}/customresourcedefinitions`,
  strategy: strategy<KubeObject>({
    allowUnconditionalUpdate: false,
    validateStatusUpdate: (next) => validateAcceptedNames(statusOf(next)),
    kubeFinalizerNames: false,
    validateName: nameIsDnsSubdomain,
    tracksGeneration: true,
    prepareForCreate: prepareCrdForCreate,
    prepareForUpdate: prepareCrdForUpdate,
    applyDefaults: applyCrdDefaults,
    validate: validateCrd,
    validateCreate: (crd) => [...celCostLimitErrors(crd), ...conversionErrors(crd, true)],
    validateUpdate: validateCrdUpdate,
    startTermination: startCrdTermination,
  }),
  ownSchema: {
    // Built on first use: it reads meta/v1's messages, which a start need not parse.
    get typed() {
      return (crdTypedSchema ??= customResourceSchema(CRD_SCHEMA, 'CustomResourceDefinition'));
    },
    openApi: { ...CRD_SCHEMA, 'x-kubernetes-group-version-kind': [{ group: CRD_GROUP, kind: 'CustomResourceDefinition', version: 'v1' }] },
    definitionName: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  },
});
