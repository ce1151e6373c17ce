import type { MaybePromise } from '../api/maybe-promise';
import { forbidden } from '../api/errors';
import { objectOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

/** Lists every object of a cluster-scoped kind, from a cache where one exists (kube's listers). */
export type ClassLister = () => MaybePromise<KubeObject[]>;

const IS_DEFAULT = 'storageclass.kubernetes.io/is-default-class';
const IS_DEFAULT_BETA = 'storageclass.beta.kubernetes.io/is-default-class';
/** The claim's class before spec.storageClassName existed (v1.BetaStorageClassAnnotation). */
const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/**
 * The default among several: the newest, then the first by name (pkg/volume/util GetDefaultClass
 * and defaultingressclass's getDefaultClass sort alike since kube 1.26).
 */
export function newestDefault(classes: KubeObject[], isDefault: (c: KubeObject) => boolean): KubeObject | null {
  const created = (c: KubeObject): number => Date.parse(String(c.metadata.creationTimestamp ?? '')) || 0;
  const defaults = classes.filter(isDefault).sort((a, b) => created(b) - created(a) || ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  return defaults[0] ?? null;
}

/** Is this an admission of a create of `group/resource` itself (not a subresource)? NewHandler(admission.Create). */
export function createOf(attrs: AdmissionAttributes, group: string, resource: string): boolean {
  return attrs.operation === 'CREATE' && attrs.def.group === group && attrs.def.resource === resource && attrs.subresource === '' && !!attrs.object;
}

/**
 * DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): a claim created
 * without a class, neither spec.storageClassName (even "") nor the beta annotation, gets the
 * default StorageClass's name.
 */
export class DefaultStorageClass implements AdmissionPlugin {
  readonly name = 'DefaultStorageClass';

  constructor(private readonly storageClasses: ClassLister) {}

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (!createOf(attrs, '', 'persistentvolumeclaims')) return;
    return this.admitClaim(attrs);
  }

  private async admitClaim(attrs: AdmissionAttributes): Promise<void> {
    const claim = attrs.object!;
    const spec = objectOf(claim.spec);
    if (typeof spec.storageClassName === 'string' || claim.metadata.annotations?.[BETA_CLASS_ANNOTATION] !== undefined) return;
    let chosen: KubeObject | null;
    try {
      chosen = newestDefault(
        await this.storageClasses(),
        (c) => c.metadata.annotations?.[IS_DEFAULT] === 'true' || c.metadata.annotations?.[IS_DEFAULT_BETA] === 'true',
      );
    } catch (err) {
      throw forbidden({ group: '', resource: 'persistentvolumeclaims' }, claim.metadata.name ?? '', err instanceof Error ? err.message : String(err));
    }
    if (!chosen) return;
    claim.spec = { ...spec, storageClassName: chosen.metadata.name };
  }
}
