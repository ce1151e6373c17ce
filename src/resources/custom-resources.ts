import type { ObjectConverter } from '../registry/conversion';
import type { WebhookConversion } from './crd-conversion-webhook';
import { compareKubeVersions } from '../api/kube-version-order';
import type { KubeObject } from '../api/types';
import { customResourceColumns, type AdditionalPrinterColumn } from '../registry/custom-columns';
import { defineResource, type ResourceDefinition, type Verb } from '../registry/resource-definition';
import { getPath } from '../registry/object-path';
import type { ScaleFacts } from '../registry/scale';
import { strategy } from '../registry/strategy';
import { compileCelRules } from '../schema/custom-cel-loader';
import { applySchemaDefaults } from '../schema/custom-defaults';
import { ratchetedSchemaErrors, validateCustomObject } from '../schema/custom-validation';
import type { JSONSchemaProps } from '../schema/json-schema-props';
import { customResourceSchema } from '../schema/openapi-typed-schema';
import type { CrdVersion, CrdView } from './customresourcedefinitions';

/**
 * The resources a CustomResourceDefinition defines: one definition per served version, all kept
 * under `/<group>/<plural>/` as kube-apiserver keeps them. Versions convert with the None
 * strategy: only apiVersion differs between them.
 */

/** "stable.example.com" -> "com.example.stable": how kube-apiserver names custom kinds in OpenAPI. */
function reversedGroup(group: string): string {
  return group.split('.').reverse().join('.');
}

/** The OpenAPI v3 schema of the kind: the CRD's schema with the fields every object has. */
function openApiOf(view: CrdView, version: CrdVersion, schema: JSONSchemaProps): Record<string, unknown> {
  return {
    ...schema,
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      ...schema.properties,
    },
    'x-kubernetes-group-version-kind': [{ group: view.group, kind: view.names.kind, version: version.name }],
  };
}

/** ".spec.replicas" -> ["spec", "replicas"]: CRDs allow only simple paths here. */
function pathOf(jsonPath: string): string[] {
  return jsonPath.split('.').filter(Boolean);
}

/** A field selector sees a missing field as "" and a number or bool as its JSON text. */
function selectableFieldsOf(paths: string[]): ResourceDefinition['selectableFields'] {
  return Object.fromEntries(
    paths.map((jsonPath) => {
      const path = pathOf(jsonPath);
      return [
        path.join('.'),
        (obj: KubeObject) => {
          const value = getPath(obj, path);
          return value === undefined || value === null ? '' : String(value);
        },
      ];
    }),
  );
}

function scaleFactsOf(scale: NonNullable<CrdVersion['scale']>): ScaleFacts {
  return {
    specReplicasPath: pathOf(scale.specReplicasPath),
    statusReplicasPath: pathOf(scale.statusReplicasPath),
    labelSelectorPath: pathOf(scale.labelSelectorPath),
  };
}

/** The verbs kube's CRD discovery lists, in its order (DiscoveryController.sync); a terminating CRD's allow no writes but deletes. */
const VERBS: Verb[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const TERMINATING_VERBS: Verb[] = ['delete', 'deletecollection', 'get', 'list', 'watch'];

/**
 * What every request to a deprecated version is warned with: its own text, else kube's
 * defaultDeprecationWarning, which names the newest served, undeprecated version above it.
 */
function deprecationWarningOf(view: CrdView, version: CrdVersion): string | null {
  if (!version.deprecation) return null;
  if (version.deprecation.warning !== null) return version.deprecation.warning;
  const warning = `${view.group}/${version.name} ${view.names.kind} is deprecated`;
  const newer = view.versions
    .filter((v) => v.served && !v.deprecation && compareKubeVersions(v.name, version.name) < 0)
    .sort((a, b) => compareKubeVersions(a.name, b.name));
  return newer.length > 0 ? `${warning}; use ${view.group}/${newer[0].name} ${view.names.kind}` : warning;
}

function customResource(
  view: CrdView,
  version: CrdVersion,
  storage: string | undefined,
  converter: ObjectConverter | undefined,
  terminating: () => boolean,
): ResourceDefinition {
  const schema = version.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const rules = compileCelRules(schema);
  const deprecationWarning = deprecationWarningOf(view, version);
  // KubeObject: a custom resource's content is whatever its CRD's schema says.
  return defineResource<KubeObject>({
    group: view.group,
    version: version.name,
    resource: view.names.plural,
    singular: view.names.singular,
    kind: view.names.kind,
    listKind: view.names.listKind,
    namespaced: view.scope === 'Namespaced',
    shortNames: view.names.shortNames,
    categories: view.names.categories,
    subresources: [...(version.hasStatus ? (['status'] as const) : []), ...(version.scale ? (['scale'] as const) : [])],
    ...(version.scale ? { scale: scaleFactsOf(version.scale) } : {}),
    storagePath: `${view.group}/${view.names.plural}`,
    customResource: true,
    createRefusal: () => (terminating() ? 'create not allowed while custom resource definition is terminating' : null),
    discoveryVerbs: () => (terminating() ? TERMINATING_VERBS : VERBS),
    returnDeletedObject: true,
    // crConverter.ConvertFieldLabel admits the version's selectableFields, and metadata.namespace only when namespaced
    fieldLabelConversion: { namespaceLabel: view.scope === 'Namespaced' },
    selectableFields: selectableFieldsOf(version.selectableFields),
    ...(storage && storage !== version.name ? { storageApiVersion: `${view.group}/${storage}` } : {}),
    ...(converter ? { converter } : {}),
    ...(deprecationWarning !== null ? { deprecationWarning } : {}),
    printerColumns: customResourceColumns(version.printerColumns as unknown as AdditionalPrinterColumn[]),
    strategy: strategy<KubeObject>({
      kubeFinalizerNames: false,
      allowUnconditionalUpdate: false,
      tracksGeneration: true,
      prepareForCreate: (obj: KubeObject) => {
        if (version.hasStatus) delete obj.status;
      },
      applyDefaults: (obj) => applySchemaDefaults(schema, obj),
      // Creates and updates are validated apart: an update's errors on what it leaves unchanged are ratcheted.
      validateCreate: (obj) => [...validateCustomObject(schema, obj), ...rules.validate(obj)],
      validateUpdate: (next, prev, ctx) => [...ratchetedSchemaErrors(schema, next, prev), ...rules.validateUpdate(next, prev, (w) => ctx.warn(w))],
      // The status strategy validates the object against its schema and rules; what lies outside status is unchanged there, so only status's errors can be new.
      validateStatusUpdate: (next, prev, ctx) =>
        [...ratchetedSchemaErrors(schema, next, prev), ...rules.validateUpdate(next, prev, (w) => ctx.warn(w))].filter((e) => /^status(\.|\[|$)/.test(e.field)),
    }),
    ownSchema: {
      typed: customResourceSchema(schema, view.names.kind),
      openApi: openApiOf(view, version, schema),
      definitionName: `${reversedGroup(view.group)}.${version.name}.${view.names.kind}`,
    },
  });
}

/** Calls a CRD's conversion webhook (`strategy: Webhook`), with the server's service resolution. */
export type WebhookConverterOf = (conversion: WebhookConversion) => ObjectConverter;

/**
 * The served versions' definitions, the storage version first (the one controllers watch); with
 * a conversion webhook they share one converter, which every version's objects go through. While
 * `terminating` says the CRD is (its Terminating condition), creates are refused.
 */
export function customResourceDefinitions(view: CrdView, webhookConverterOf: WebhookConverterOf, terminating: () => boolean): ResourceDefinition[] {
  const converter = view.conversion.strategy === 'Webhook' ? webhookConverterOf(view.conversion) : undefined;
  return view.versions
    .filter((v) => v.served)
    .sort((a, b) => Number(b.storage) - Number(a.storage))
    .map((v) => customResource(view, v, view.versions.find((s) => s.storage)?.name, converter, terminating));
}
