import { forbidden } from '../api/errors';
import { objectOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { createOf, newestDefault, type ClassLister } from './default-storage-class';

const IS_DEFAULT = 'ingressclass.kubernetes.io/is-default-class';
/** The deprecated class annotation (networking/v1beta1 AnnotationIngressClass): an Ingress carrying it has chosen. */
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/**
 * DefaultIngressClass (plugin/pkg/admission/network/defaultingressclass): an Ingress created
 * without spec.ingressClassName or the class annotation gets the default IngressClass's name.
 */
export class DefaultIngressClass implements AdmissionPlugin {
  readonly name = 'DefaultIngressClass';

  constructor(private readonly ingressClasses: ClassLister) {}

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    if (!createOf(attrs, 'networking.k8s.io', 'ingresses')) return;
    return this.admitIngress(attrs);
  }

  private async admitIngress(attrs: AdmissionAttributes): Promise<void> {
    const ingress = attrs.object!;
    const spec = objectOf(ingress.spec);
    if (typeof spec.ingressClassName === 'string' || ingress.metadata.annotations?.[CLASS_ANNOTATION] !== undefined) return;
    let chosen: KubeObject | null;
    try {
      chosen = newestDefault(await this.ingressClasses(), (c) => c.metadata.annotations?.[IS_DEFAULT] === 'true');
    } catch (err) {
      throw forbidden({ group: 'networking.k8s.io', resource: 'ingresses' }, ingress.metadata.name ?? '', err instanceof Error ? err.message : String(err));
    }
    if (!chosen) return;
    ingress.spec = { ...spec, ingressClassName: chosen.metadata.name };
  }
}
