import { objectOf, objectsIn, stringOf as str, stringsIn } from '../../api/json-read';
import type { GroupVersionKind, KubeObject } from '../../api/types';
import type { ObjectNode, SchemaNode } from '../../schema/typed-schema';
import { celErrorText } from './cel';
import { literalType, walk, type Expr } from '../../cel/ast';
import { policyVariableNames } from './compiled-policy';
import { compileExpression } from './cel';

/**
 * The ValidatingAdmissionPolicy type checker (k8s.io/apiserver's validating.TypeChecker): each
 * expression is checked against the schema of every kind the policy's resourceRules name exactly
 * (no wildcards). kapi's check covers what a select on `object` or `oldObject` reaches through the
 * kind's structure: a field the kind does not have is cel-go's "undefined field", and an operator
 * between a typed field and a literal (or another field) of another type is its "found no matching
 * overload" (docs/divergences.md).
 */

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** A kind's schema by the resource a rule names; null for resources kapi has no schema of. */
export type SchemaOf = (group: string, version: string, resource: string) => { gvk: GroupVersionKind; schema: ObjectNode } | null;

/** The fields every object has beyond its message's: TypeMeta. */
const TYPE_META = new Set(['apiVersion', 'kind']);

/** The select chain `object.a.b` as ['object', 'a', 'b'], or null when it does not start at an identifier. */
function chainOf(expr: Expr | undefined): string[] | null {
  if (!expr) return null;
  const k = expr.exprKind;
  if (k.case === 'identExpr') return [k.value.name];
  if (k.case === 'selectExpr') {
    const operand = chainOf(k.value.operand);
    return operand ? [...operand, k.value.field] : null;
  }
  return null;
}

/** The node a select chain on object or oldObject reaches, or null where the schema stops saying (maps, lists, free-form values). */
function nodeOf(chain: string[], schema: ObjectNode): SchemaNode | null {
  let node: SchemaNode = schema;
  for (const name of chain.slice(1)) {
    if (node.kind !== 'object') return null;
    const found = node.field(name);
    if (!found) return null;
    node = found.node;
  }
  return node;
}

/** cel-go's name of a scalar's type, or null when the checker would see dyn. */
function scalarType(node: SchemaNode | null): string | null {
  if (node?.kind !== 'scalar') return null;
  if (node.type === 'int32' || node.type === 'int64') return 'int';
  if (node.type === 'number') return 'double';
  if (node.type === 'boolean') return 'bool';
  return node.type === 'string' ? 'string' : null;
}

/** The static type of an operand: a literal's, or a typed field's. */
function operandType(expr: Expr, schema: ObjectNode): string | null {
  if (expr.exprKind.case === 'constExpr') return literalType(expr);
  const chain = chainOf(expr);
  if (!chain || (chain[0] !== 'object' && chain[0] !== 'oldObject')) return null;
  return scalarType(nodeOf(chain, schema));
}

/** Operators whose operands must be of one kind (cel-go's standard overloads); numbers compare across int, uint and double. */
const OPERATORS = new Set(['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_', '_+_', '_-_', '_*_', '_/_', '_%_']);
const NUMERIC = new Set(['int', 'uint', 'double']);
const ORDERING = new Set(['_<_', '_<=_', '_>_', '_>=_']);

function overloadMissing(fn: string, left: string, right: string): boolean {
  if (left === right) return false;
  return !(ORDERING.has(fn) && NUMERIC.has(left) && NUMERIC.has(right));
}

/** Whether the chain's last field is undefined in the schema, every field before it being defined (one warning per mistake). */
function undefinedLast(chain: string[], schema: ObjectNode): boolean {
  let node: SchemaNode = schema;
  for (const [i, name] of chain.slice(1).entries()) {
    const last = i === chain.length - 2;
    if (node.kind !== 'object') return false;
    if (i === 0 && TYPE_META.has(name)) return false;
    const found = node.field(name);
    if (!found) return last && !node.preservesUnknown;
    node = found.node;
  }
  return false;
}

/** The undefined fields one expression selects on object or oldObject, in cel-go's error text. */
function checkExpression(source: string, schema: ObjectNode): string[] {
  let compiled;
  try {
    compiled = compileExpression(source, policyVariableNames(true));
  } catch {
    // Validation refuses what does not compile; nothing to check here.
    return [];
  }
  const positions = (compiled.parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const issues: string[] = [];
  for (const e of walk(compiled.parsed.expr)) {
    if (e.exprKind.case === 'callExpr' && OPERATORS.has(e.exprKind.value.function) && e.exprKind.value.args.length === 2) {
      const fn = e.exprKind.value.function;
      const [left, right] = e.exprKind.value.args.map((a) => operandType(a, schema));
      if (left && right && overloadMissing(fn, left, right))
        issues.push(celErrorText(source, positions[String(e.id)] ?? 0, `found no matching overload for '${fn}' applied to '(${left}, ${right})'`));
      continue;
    }
    if (e.exprKind.case !== 'selectExpr') continue;
    const chain = chainOf(e);
    if (!chain || (chain[0] !== 'object' && chain[0] !== 'oldObject')) continue;
    if (undefinedLast(chain, schema)) issues.push(celErrorText(source, positions[String(e.id)] ?? 0, `undefined field '${chain[chain.length - 1]}'`));
  }
  return issues;
}

const gvkText = (gvk: GroupVersionKind) => `${gvk.group ? `${gvk.group}/` : ''}${gvk.version}, Kind=${gvk.kind}`;

/** The kinds the policy's resourceRules name without wildcards. */
function kindsOf(policy: KubeObject, schemaOf: SchemaOf): { gvk: GroupVersionKind; schema: ObjectNode }[] {
  const out: { gvk: GroupVersionKind; schema: ObjectNode }[] = [];
  for (const rule of objectsIn(objectOf(objectOf(policy.spec).matchConstraints).resourceRules)) {
    const [groups, versions, resources] = [stringsIn(rule.apiGroups), stringsIn(rule.apiVersions), stringsIn(rule.resources)];
    if ([...groups, ...versions, ...resources].some((v) => v.includes('*'))) continue;
    for (const g of groups)
      for (const v of versions)
        for (const r of resources) {
          if (r.includes('/')) continue;
          const found = schemaOf(g, v, r);
          if (found && !out.some((o) => gvkText(o.gvk) === gvkText(found.gvk))) out.push(found);
        }
  }
  return out;
}

/** TypeChecker.Check: the warnings of every expression of the policy, each naming the kind it was checked against. */
export function typeCheck(policy: KubeObject, schemaOf: SchemaOf): ExpressionWarning[] {
  const kinds = kindsOf(policy, schemaOf);
  if (kinds.length === 0) return [];
  const spec = objectOf(policy.spec);
  const expressions: { fieldRef: string; source: string }[] = [
    ...objectsIn(spec.validations).flatMap((v, i) => [
      { fieldRef: `spec.validations[${i}].expression`, source: str(v.expression) },
      ...(v.messageExpression ? [{ fieldRef: `spec.validations[${i}].messageExpression`, source: str(v.messageExpression) }] : []),
    ]),
    ...objectsIn(spec.auditAnnotations).map((a, i) => ({ fieldRef: `spec.auditAnnotations[${i}].valueExpression`, source: str(a.valueExpression) })),
    ...objectsIn(spec.matchConditions).map((c, i) => ({ fieldRef: `spec.matchConditions[${i}].expression`, source: str(c.expression) })),
    ...objectsIn(spec.variables).map((v, i) => ({ fieldRef: `spec.variables[${i}].expression`, source: str(v.expression) })),
  ];
  const warnings: ExpressionWarning[] = [];
  for (const { fieldRef, source } of expressions) {
    const results = kinds.flatMap(({ gvk, schema }) => {
      const issues = checkExpression(source, schema);
      return issues.length > 0 ? [`${gvkText(gvk)}: ${issues.join('\n')}`] : [];
    });
    if (results.length > 0) warnings.push({ fieldRef, warning: results.join('\n') });
  }
  return warnings;
}
