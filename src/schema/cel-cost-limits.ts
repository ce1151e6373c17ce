import type { ParsedExpr } from '../cel/ast';
import { estimateCost, MAX_U64, type CelType } from '../cel/cost-estimate';
import { parseCel } from '../cel/parse';
import { field, type FieldErrorList } from '../api/field-errors';
import { schemaDeclType, unboundedCardinality } from './cel-decl-type';
import type { JSONSchemaProps } from './json-schema-props';

/**
 * kube's static cost limits on a CRD's validation rules, checked when the CRD is written
 * (apiextensions validation.go, cel_validation.go): each rule's estimated cost times the most
 * times its node can occur in one object may not exceed StaticEstimatedCostLimit, each
 * messageExpression's estimate neither, and all of them together not StaticEstimatedCRDCostLimit.
 */

export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** TotalCost.ObserveExpressionCost names at most this many of the dearest rules, each at least 1% of the CRD limit. */
const MOST_EXPENSIVE = 4;

const multiply = (cost: number, cardinality: number): number => (cost === 0 ? 0 : Math.min(MAX_U64, cost * cardinality));

/** Go's strconv 'f' formatting: the float's exact value rounded half to even (toFixed rounds exact halves up). */
function goFixed(x: number, digits: number): string {
  const scaled = x * 10 ** digits;
  if (Number.isInteger(scaled * 2) && !Number.isInteger(scaled) && Math.floor(scaled) % 2 === 0) return (Math.floor(scaled) / 10 ** digits).toFixed(digits);
  return x.toFixed(digits);
}

/** getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const ratio = cost / limit;
  const factor = ratio > 100 ? 'more than 100x' : ratio < 1.5 ? `${goFixed(ratio, 6)}x` : `${goFixed(ratio, 1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** extractMaxElements: how many times a node's children occur per occurrence of it, or null when unbounded. */
function maxElements(s: JSONSchemaProps): number | null {
  if (s.type === 'object') return s.additionalProperties !== undefined ? (s.maxProperties !== undefined ? Math.max(0, s.maxProperties) : null) : 1;
  if (s.type === 'array') return s.maxItems !== undefined ? Math.max(0, s.maxItems) : null;
  return 1;
}

/** The estimated max cost of an expression with `self` (and `oldSelf`) of the given type, or null if it does not parse. */
function estimate(source: string, self: CelType, optionalOldSelf: boolean): number | null {
  let parsed: ParsedExpr;
  try {
    parsed = parseCel(source);
  } catch {
    return null;
  }
  const vars = new Map<string, CelType>([
    ['self', self],
    ['oldSelf', optionalOldSelf ? { kind: 'optional', elem: self } : self],
  ]);
  return estimateCost(parsed.expr, { root: self, vars }).max;
}

/**
 * The cost errors of a structural schema's rules, in the order kube reports them (a node's
 * children before it); without `perExpression`, only the total's.
 */
export function celCostErrors(schema: JSONSchemaProps, path: string, perExpression = true): FieldErrorList {
  const errs: FieldErrorList = [];
  let total = 0;
  const dearest: { path: string; cost: number }[] = [];
  const observe = (at: string, cost: number): void => {
    total = Math.min(MAX_U64, total + cost);
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    dearest.push({ path: at, cost });
    dearest.sort((a, b) => b.cost - a.cost);
    dearest.splice(MOST_EXPENSIVE);
  };
  // cardinality: the product of the bounds of the lists and maps above the node (the root occurs once), null once one is unbounded
  const walk = (s: JSONSchemaProps, at: string, cardinality: number | null, isRoot: boolean): void => {
    const per = maxElements(s);
    const childCardinality = cardinality === null || per === null ? null : multiply(cardinality, per);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${at}.additionalProperties`, childCardinality, false);
    for (const [name, child] of Object.entries(s.properties ?? {})) walk(child, `${at}.properties[${name}]`, childCardinality, false);
    if (s.items) walk(s.items, `${at}.items`, childCardinality, false);
    const rules = s['x-kubernetes-validations'] ?? [];
    if (rules.length === 0) return;
    const self = schemaDeclType(s, isRoot || s['x-kubernetes-embedded-resource'] === true);
    if (!self) return;
    // getExpressionCost: times the bounded cardinality, else as often as the node's smallest form fits in a request
    const times = cardinality ?? unboundedCardinality(self.minSize!);
    rules.forEach((r, i) => {
      const rulePath = `${at}.x-kubernetes-validations[${i}]`;
      const raw = r.rule?.trim() ? estimate(r.rule, self, r.optionalOldSelf === true) : null;
      if (raw === null) return;
      const cost = multiply(raw, times);
      if (perExpression && cost > STATIC_ESTIMATED_COST_LIMIT)
        errs.push(field.forbidden(`${rulePath}.rule`, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
      observe(`${rulePath}.rule`, cost);
      const message = r.messageExpression ? estimate(r.messageExpression, self, r.optionalOldSelf === true) : null;
      if (message === null) return;
      if (perExpression && message > STATIC_ESTIMATED_COST_LIMIT)
        errs.push(field.forbidden(`${rulePath}.messageExpression`, costErrorMessage('estimated messageExpression cost', message, STATIC_ESTIMATED_COST_LIMIT)));
      observe(`${rulePath}.messageExpression`, message);
    });
  };
  walk(schema, path, 1, true);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const d of dearest) errs.push(field.forbidden(d.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    errs.push(
      field.forbidden(
        path,
        costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT),
      ),
    );
  }
  return errs;
}
