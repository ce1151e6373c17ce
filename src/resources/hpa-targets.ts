import { objectOf as obj } from '../api/json-read';
import { isPlainObject } from '../api/types';

/** kubectl's Targets column of an HPA (formatHPAMetrics): each metric's current value over its target, two at most. */

type Obj = Record<string, unknown>;

const MAX_SHOWN = 2;
const UNKNOWN = '<unknown>';

/** Quantity.String() of a pointer: "<nil>" when absent. */
const quantity = (value: unknown): string => (value === undefined || value === null ? '<nil>' : String(value));

/** The status entry at the metric's index, when it reports the same source. */
function currentOf(statuses: unknown[], i: number, key: string): Obj | null {
  const status = obj(statuses[i]);
  return isPlainObject(status[key]) ? obj(status[key].current) : null;
}

function valueOrAverage(source: Obj, current: Obj | null): string {
  const target = obj(source.target);
  if (target.averageValue !== undefined) {
    const now = current && current.averageValue !== undefined ? quantity(current.averageValue) : UNKNOWN;
    return `${now}/${quantity(target.averageValue)} (avg)`;
  }
  return `${current ? quantity(current.value) : UNKNOWN}/${quantity(target.value)}`;
}

function resourceTarget(source: Obj, current: Obj | null): string {
  const target = obj(source.target);
  const name = typeof source.name === 'string' ? source.name : '';
  if (target.averageValue !== undefined) {
    return `${name}: ${current ? quantity(current.averageValue) : UNKNOWN}/${quantity(target.averageValue)}`;
  }
  const now = current && typeof current.averageUtilization === 'number' ? `${current.averageUtilization}%` : UNKNOWN;
  const goal = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
  return `${name}: ${now}/${goal}`;
}

function formatMetric(metric: Obj, statuses: unknown[], i: number): string {
  switch (metric.type) {
    case 'External':
      return valueOrAverage(obj(metric.external), currentOf(statuses, i, 'external'));
    case 'Object':
      return valueOrAverage(obj(metric.object), currentOf(statuses, i, 'object'));
    case 'Pods': {
      const current = currentOf(statuses, i, 'pods');
      return `${current ? quantity(current.averageValue) : UNKNOWN}/${quantity(obj(obj(metric.pods).target).averageValue)}`;
    }
    case 'Resource':
      return resourceTarget(obj(metric.resource), currentOf(statuses, i, 'resource'));
    case 'ContainerResource':
      return resourceTarget(obj(metric.containerResource), currentOf(statuses, i, 'containerResource'));
    default:
      return '<unknown type>';
  }
}

export function formatHpaTargets(metrics: unknown, currentMetrics: unknown): string {
  const specs = Array.isArray(metrics) ? metrics : [];
  if (specs.length === 0) return '<none>';
  const statuses = Array.isArray(currentMetrics) ? currentMetrics : [];
  const shown = specs.slice(0, MAX_SHOWN).map((metric, i) => formatMetric(obj(metric), statuses, i));
  const more = specs.length - MAX_SHOWN;
  return more > 0 ? `${shown.join(', ')} + ${more} more...` : shown.join(', ');
}
