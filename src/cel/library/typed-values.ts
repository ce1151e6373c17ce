import { celGoErrorText } from '../runtime-errors';
import { celEnv, celFunc, celMethod, CelScalar, isCelError, isCelMap, mapType, parse, plan, type CelFunc, type CelMapType, type CelType } from '@bufbuild/cel';

/**
 * Kubernetes' CEL types (Quantity, URL, IP, CIDR, Semver, Format) and cel-go's optionals as kapi's
 * evaluator carries them: maps holding only what decides equality, so that `==` between two of
 * them is cel-go's `Equal` of the type (apiserver/pkg/cel: quantity.go, ip.go, cidr.go, url.go,
 * semver.go; cel-go types/optional.go), tagged with their kind
 * under the int key 0, which no JSON object (a request's object, a param) can hold: data cannot
 * pass for a typed value.
 */

export const TYPED: CelMapType = mapType(CelScalar.DYN, CelScalar.DYN);
const KIND = 0n;

export type TypedValue = Map<string | bigint, unknown>;

export function typedValue(kind: string, fields: Record<string, unknown>): TypedValue {
  return new Map<string | bigint, unknown>([[KIND, kind], ...Object.entries(fields)]);
}

/** The kind of a typed value, or null when the value is no typed value. */
export function kindOf(value: unknown): string | null {
  if (isCelMap(value)) {
    const kind = value.get(KIND);
    return typeof kind === 'string' ? kind : null;
  }
  return null;
}

/** A field of a typed value (its map, as the evaluator hands it to a function). */
export function field<T>(value: unknown, name: string): T {
  return (value as { get(key: string): unknown }).get(name) as T;
}

/** Returned by an overload that does not apply to the kinds it was given. */
export const NO_MATCH = Symbol('no matching overload');

/** One overload of a library function; `target` is set for methods (`x.f()`). */
export interface Overload {
  name: string;
  target?: CelType;
  args: readonly CelType[];
  result: CelType;
  impl: (target: unknown, args: unknown[]) => unknown;
}

/** An argument of an overload: a CEL type, or a kind of typed value. */
export type Param = CelType | string;

function matches(value: unknown, param: Param): boolean {
  return typeof param !== 'string' || kindOf(value) === param;
}

const celTypeOf = (param: Param): CelType => (typeof param === 'string' ? TYPED : param);

/** A method of one kind of typed value: applies only when the target and the typed arguments have their kinds. */
export function typedMethod(kind: string, name: string, args: readonly Param[], result: Param, impl: (self: never, ...args: never[]) => unknown): Overload {
  return {
    name,
    target: TYPED,
    args: args.map(celTypeOf),
    result: celTypeOf(result),
    impl: (self, a) => (matches(self, kind) && a.every((v, i) => matches(v, args[i])) ? impl(self as never, ...(a as never[])) : NO_MATCH),
  };
}

/** A function of typed values (`string(ip)`): applies only when the typed arguments have their kinds. */
export function typedFunc(name: string, args: readonly Param[], result: Param, impl: (...args: never[]) => unknown): Overload {
  return {
    name,
    args: args.map(celTypeOf),
    result: celTypeOf(result),
    impl: (_self, a) => (a.every((v, i) => matches(v, args[i])) ? impl(...(a as never[])) : NO_MATCH),
  };
}

/** A method of a plain CEL type (`list.isSorted()`, `string.find(re)`). */
export function method(name: string, target: CelType, args: readonly CelType[], result: CelType, impl: (self: never, ...args: never[]) => unknown): Overload {
  return { name, target, args, result, impl: (self, a) => impl(self as never, ...(a as never[])) };
}

/** A function: `typedFunc` whose arguments are plain CEL types. */
export const func = typedFunc;

function signature(o: Overload): string {
  return `${o.target ? `${o.target.name}.` : ''}${o.name}(${o.args.map((a) => a.name).join(',')})`;
}

/**
 * The evaluator keeps one function per name and argument types, so overloads that differ only in
 * the kind of typed value they take (`compareTo` of quantities and of semvers) become one function
 * that tries each in turn.
 */
export function combineOverloads(overloads: readonly Overload[]): CelFunc[] {
  const bySignature = new Map<string, Overload[]>();
  for (const o of overloads) bySignature.set(signature(o), [...(bySignature.get(signature(o)) ?? []), o]);
  return [...bySignature.values()].map((group) => {
    const [first] = group;
    const call = (target: unknown, args: unknown[]): unknown => {
      for (const o of group) {
        const result = o.impl(target, args);
        if (result !== NO_MATCH) return result;
      }
      throw new Error(
        `found no matching overload for '${first.name}' applied to '(${[...(target === undefined ? [] : [target]), ...args].map(typeName).join(', ')})'`,
      );
    };
    if (first.target) {
      return celMethod(first.name, first.target, first.args, first.result, function (this: unknown, ...args: unknown[]) {
        return call(this, args) as never;
      } as never);
    }
    return celFunc(first.name, first.args, first.result, ((...args: unknown[]) => call(undefined, args)) as never);
  });
}

const TYPE_NAMES: Record<string, string> = {
  quantity: 'kubernetes.Quantity',
  url: 'kubernetes.URL',
  ip: 'net.IP',
  cidr: 'net.CIDR',
  semver: 'kubernetes.Semver',
  optional: 'optional_type',
};

function typeName(value: unknown): string {
  const kind = kindOf(value);
  if (kind) return TYPE_NAMES[kind] ?? kind;
  switch (typeof value) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    default:
      return value === null ? 'null_type' : isCelMap(value) ? 'map' : 'dyn';
  }
}

/** CEL's own operators on two values (equality, ordering, addition), as the evaluator applies them. */
const OPERATOR_ENV = celEnv();
const operators = {
  equals: plan(OPERATOR_ENV, parse('a == b')),
  less: plan(OPERATOR_ENV, parse('a < b')),
  add: plan(OPERATOR_ENV, parse('a + b')),
};

function apply(op: keyof typeof operators, a: unknown, b: unknown): unknown {
  const result = operators[op]({ a, b } as never);
  if (isCelError(result)) throw new Error(celGoErrorText(result.message));
  return result;
}

export const celEquals = (a: unknown, b: unknown): boolean => apply('equals', a, b) === true;
export const celLess = (a: unknown, b: unknown): boolean => apply('less', a, b) === true;
export const celAdd = (a: unknown, b: unknown): unknown => apply('add', a, b);
