import type { Expr } from '../../cel/ast';

/**
 * Mutating policies build typed values: `JSONPatch{op: ..., path: ..., value: ...}` and
 * apply configurations `Object{metadata: Object.metadata{labels: {...}}}`. kapi's CEL has no
 * schema-typed objects, so each such construction is rewritten, before planning, into a map
 * literal with the same field names as keys; the plugin then reads those maps as the typed
 * values kube's mutating/patch package reads (docs/divergences.md: no type checking of fields).
 */

/** Ids above any the parser hands out for one expression. */
const FIRST_SYNTHETIC_ID = 1n << 40n;

type StructEntry = Extract<Expr['exprKind'], { case: 'structExpr' }>['value']['entries'][number];

function stringConstant(id: bigint, value: string): Expr {
  return {
    $typeName: 'cel.expr.Expr',
    id,
    exprKind: { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'stringValue', value } } },
  } as Expr;
}

/** Rewrites every message construction in `expr`, in place; returns the message names met. */
export function constructionsAsMaps(expr: Expr | undefined): string[] {
  const names: string[] = [];
  let next = FIRST_SYNTHETIC_ID;
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    const value = node as { $typeName?: string; messageName?: string; entries?: StructEntry[] };
    if (value.$typeName === 'cel.expr.Expr.CreateStruct' && value.messageName) {
      names.push(value.messageName);
      value.messageName = '';
      for (const entry of value.entries ?? []) {
        if (entry.keyKind.case === 'fieldKey') entry.keyKind = { case: 'mapKey', value: stringConstant(next++, entry.keyKind.value) };
      }
    }
    for (const child of Object.values(node)) if (typeof child === 'object') visit(child);
  };
  visit(expr);
  return names;
}
