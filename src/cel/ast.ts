import type { parse } from '@bufbuild/cel';

/** A parsed CEL expression (cel.expr.ParsedExpr) and its tree (cel.expr.Expr), the shapes cel-go's parser gives. */
export type ParsedExpr = ReturnType<typeof parse>;
export type Expr = NonNullable<ParsedExpr['expr']>;
export type Call = Extract<Expr['exprKind'], { case: 'callExpr' }>['value'];
export type Comprehension = Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'];

/** The expressions directly under one, in source order. */
export function children(e: Expr): (Expr | undefined)[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return [k.value.operand];
    case 'callExpr':
      return [k.value.target, ...k.value.args];
    case 'listExpr':
      return [...k.value.elements];
    case 'structExpr':
      return k.value.entries.flatMap((entry) => [entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined, entry.value]);
    case 'comprehensionExpr':
      return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result];
    default:
      return [];
  }
}

/** Every expression of a tree, parents before their children. */
export function* walk(root: Expr | undefined): Generator<Expr> {
  const pending: (Expr | undefined)[] = [root];
  while (pending.length > 0) {
    const e = pending.pop();
    if (!e) continue;
    yield e;
    pending.push(...children(e).reverse());
  }
}

/** cel-go's type names of the literal kinds. */
export const CONSTANT_TYPES = {
  int64Value: 'int',
  uint64Value: 'uint',
  doubleValue: 'double',
  stringValue: 'string',
  boolValue: 'bool',
  bytesValue: 'bytes',
  nullValue: 'null',
} as const;

/** cel-go's type name of a literal (int, uint, double, string, bool), or null for other expressions. */
export function literalType(e: Expr): string | null {
  if (e.exprKind.case !== 'constExpr') return null;
  const c = e.exprKind.value.constantKind.case;
  return c === undefined || c === 'bytesValue' || c === 'nullValue' || !(c in CONSTANT_TYPES) ? null : CONSTANT_TYPES[c as keyof typeof CONSTANT_TYPES];
}

/** Builds expressions with fresh ids (above the parser's) at one source offset. */
export class ExprFactory {
  private next: bigint;

  constructor(private readonly parsed: ParsedExpr) {
    let max = 0n;
    for (const e of walk(parsed.expr)) if (e.id > max) max = e.id;
    for (const id of Object.keys(this.positions)) if (BigInt(id) > max) max = BigInt(id);
    this.next = max + 1n;
  }

  get positions(): Record<string, number> {
    return (this.parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  }

  private make(offset: number, exprKind: unknown): Expr {
    const id = this.next++;
    if (this.parsed.sourceInfo) (this.parsed.sourceInfo.positions as Record<string, number>)[String(id)] = offset;
    return { $typeName: 'cel.expr.Expr', id, exprKind } as Expr;
  }

  ident(offset: number, name: string): Expr {
    return this.make(offset, { case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name } });
  }

  constant(
    offset: number,
    constantKind: { case: 'stringValue'; value: string } | { case: 'int64Value'; value: bigint } | { case: 'boolValue'; value: boolean },
  ): Expr {
    return this.make(offset, { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind } });
  }

  call(offset: number, fn: string, args: Expr[], target?: Expr): Expr {
    return this.make(offset, { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, args, target } });
  }

  list(offset: number, elements: Expr[]): Expr {
    return this.make(offset, { case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements, optionalIndices: [] } });
  }

  map(offset: number): Expr {
    return this.make(offset, { case: 'structExpr', value: { $typeName: 'cel.expr.Expr.CreateStruct', entries: [], messageName: '' } });
  }

  comprehension(offset: number, c: Omit<Comprehension, '$typeName' | '$unknown'>): Expr {
    return this.make(offset, { case: 'comprehensionExpr', value: { $typeName: 'cel.expr.Expr.Comprehension', ...c } });
  }
}
