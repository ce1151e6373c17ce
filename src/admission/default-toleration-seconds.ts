import { objectsIn, stringOf } from '../api/json-read';
import { isPlainObject } from '../api/types';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** Whether a toleration covers the NoExecute taint of a key: the key itself or any key, NoExecute or any effect. */
const tolerates = (t: Record<string, unknown>, key: string): boolean =>
  (stringOf(t.key) === key || stringOf(t.key) === '') && (stringOf(t.effect) === 'NoExecute' || stringOf(t.effect) === '');

/**
 * DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds): a pod that does not
 * already tolerate the not-ready and unreachable NoExecute taints gets tolerations of them for
 * --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds.
 */
export class DefaultTolerationSeconds implements AdmissionPlugin {
  readonly name = 'DefaultTolerationSeconds';

  constructor(private readonly seconds: { notReady: number; unreachable: number }) {}

  admit(attrs: AdmissionAttributes): void {
    if (attrs.def.group || attrs.def.resource !== 'pods' || attrs.subresource !== '') return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const spec = attrs.object?.spec;
    if (!isPlainObject(spec)) return;
    const tolerations = objectsIn(spec.tolerations);
    const added = [
      { key: NOT_READY, seconds: this.seconds.notReady },
      { key: UNREACHABLE, seconds: this.seconds.unreachable },
    ].filter(({ key }) => !tolerations.some((t) => tolerates(t, key)));
    if (added.length === 0) return;
    spec.tolerations = [...tolerations, ...added.map(({ key, seconds }) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }))];
  }
}
