import { literalType, type Expr } from '../cel/ast';
import { celPropertyName } from './cel-escaping';
import { ARITHMETIC_OVERLOADS, DURATION, formatType, hasOverloads, resolveCall, TIMESTAMP, type CelTypeName } from './cel-overloads';
import type { JSONSchemaProps } from './json-schema-props';

/**
 * What kube's compiler refuses in a CRD's validation rule when it type-checks the rule against
 * the structural schema (apiextensions-apiserver schema/cel Compile, cel-go's checker), as far
 * as kapi checks it: a variable other than `self`, `oldSelf` and the comprehensions' own
 * (`undeclared reference`), a function no library declares (the same), a field an object's
 * schema does not declare (`undefined field`), and an operator between a typed field and a
 * literal or field of another type (`found no matching overload`). An optional select
 * (`self.?f`) checks its field as a select does, and is an optional of it. Each is cel-go's first
 * error, at its offset.
 */

/**
 * What the checker knows of an expression's type: a schema node (with the name kube gives an
 * object's type there), a scalar type name, a type a call or literal gives, an optional of what it
 * holds, or nothing.
 */
type Known = { schema: JSONSchemaProps; name: string } | { scalar: string } | { type: CelTypeName; empty?: true } | { optional: Known } | null;

export interface RuleIssue {
  offset: number;
  message: string;
}

/** The first issue of a rule, and the type of its result where the checker knows it (cel-go's type name; null when not known). */
export interface CheckedRule {
  issue: RuleIssue | null;
  resultType: string | null;
}

/** Fields kube adds to the root schema (WithTypeAndObjectMeta); ObjectMeta there declares only name and generateName. */
const ROOT_FIELDS: Record<string, JSONSchemaProps> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
};

const NUMERIC = new Set(['int', 'uint', 'double']);
const ORDERING = new Set(['_<_', '_<=_', '_>_', '_>=_']);
const OPERATORS = new Set(['_==_', '_!=_', '_+_', '_-_', '_*_', '_/_', '_%_', ...ORDERING]);
/** Built into the language: logic and indexing, and macros' own. */
const BUILTIN_FUNCTIONS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '@not_strictly_false', 'has', '_[?_]', '_?._']);
const BUILTIN_IDENTIFIERS = new Set(['null', 'int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'type', 'null_type', 'dyn']);

/**
 * The name of the rule's `self` type: compileRule's generateUniqueSelfTypeName, which kube makes
 * from the clock's nanoseconds, so kube's own messages differ from one CRD write to the next.
 */
const selfTypeNames = new WeakMap<JSONSchemaProps, string>();
/** One name per schema node, which all its rules share, as kube compiles a node's rules in one environment. */
function selfTypeName(node: JSONSchemaProps): string {
  let name = selfTypeNames.get(node);
  if (!name) selfTypeNames.set(node, (name = `selfType${process.hrtime.bigint() % 1_000_000_000n}`));
  return name;
}

/**
 * A schema node below another, named as DeclType.MaybeAssignTypeName names the types in it: an
 * object's field after its object's name, a list's items with `@idx` and a map's values with `@elem`.
 */
const below = (parent: { name: string }, schema: JSONSchemaProps, segment: string): Known => ({ schema, name: `${parent.name}.${segment}` });

/** cel-go's type of a schema node (SchemaDeclType), for scalars. */
function scalarOf(s: JSONSchemaProps): string | null {
  if (s['x-kubernetes-int-or-string']) return null;
  switch (s.type) {
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'string':
      return s.format === 'duration' ? DURATION : s.format === 'date' || s.format === 'date-time' ? TIMESTAMP : s.format === 'byte' ? 'bytes' : 'string';
    default:
      return null;
  }
}

/** A scalar type the operators check; dyn, which any operand matches, is none. */
const typeOf = (k: Known): string | null =>
  k && 'scalar' in k ? k.scalar : k && 'schema' in k ? scalarOf(k.schema) : k && 'type' in k && !k.type.params && k.type.name !== 'dyn' ? k.type.name : null;

/** SchemaDeclType's type of a node named `name`, as cel-go names it; null where not known. */
function schemaTypeName(s: JSONSchemaProps, name: string): CelTypeName | null {
  if (s['x-kubernetes-int-or-string']) return { name: 'dyn' };
  if (s.type === 'array') return s.items ? { name: 'list', params: [schemaTypeName(s.items, `${name}.@idx`)] } : null;
  if (s.type === 'object')
    return typeof s.additionalProperties === 'object'
      ? { name: 'map', params: [{ name: 'string' }, schemaTypeName(s.additionalProperties, `${name}.@elem`)] }
      : { name, schema: s };
  const scalar = scalarOf(s);
  return scalar ? { name: scalar } : null;
}

/** The type of what the checker knows, as cel-go names it. */
function typeNameOf(k: Known): CelTypeName | null {
  if (!k) return null;
  if ('type' in k) return k.type;
  if ('scalar' in k) return { name: k.scalar };
  if ('optional' in k) return { name: OPTIONAL, params: [typeNameOf(k.optional)] };
  return schemaTypeName(k.schema, k.name);
}

const OPTIONAL = 'optional_type';

/** A type known to its elements, with no dyn in it (which any type matches). */
const fullyTyped = (t: CelTypeName | null): t is CelTypeName => t !== null && t.name !== 'dyn' && (t.params ?? []).every(fullyTyped);

/** What the checker knows of a value of a type the overload table gives: an optional's content stays open to the optional functions. */
function knownOf(t: CelTypeName): Known {
  if (t.schema) return { schema: t.schema, name: t.name };
  if (t.name !== OPTIONAL) return { type: t };
  const content = t.params?.[0];
  return { optional: content ? knownOf(content) : null };
}

/** joinTypes of a literal's elements: their one type, dyn when they differ, unknown when one is (or there are none). */
function joinTypes(types: (CelTypeName | null)[]): CelTypeName | null {
  if (types.length === 0 || types.some((t) => !t || t.name === 'object')) return null;
  return types.every((t) => formatType(t) === formatType(types[0])) ? types[0] : { name: 'dyn' };
}

/** The type a list or map lets a loop or an index reach: a list's elements, a map's keys or values. */
function typeParam(k: Known, container: 'list' | 'map', index: number): Known {
  const t = k && 'type' in k ? k.type : null;
  const param = t?.name === container ? t.params?.[index] : null;
  return param ? { type: param } : null;
}

/** The CEL type name of what an expression yields, as far as known: a schema node's own (object, list, map, int-or-string's dyn) too. */
function resultTypeOf(k: Known): string | null {
  if (!k) return null;
  if ('type' in k) return k.type.name;
  if ('scalar' in k) return k.scalar;
  if ('optional' in k) return OPTIONAL;
  const s = k.schema;
  if (s['x-kubernetes-int-or-string']) return 'dyn';
  if (s.type === 'array') return 'list';
  if (s.type === 'object') return typeof s.additionalProperties === 'object' ? 'map' : 'object';
  return scalarOf(s);
}

/** The functions that make an optional of their argument. */
const OPTIONAL_MAKERS = new Set(['optional.of', 'optional.ofNonZeroValue']);
const BOOL_RESULTS = new Set(['_==_', '_!=_', '_&&_', '_||_', '!_', '@in', '@not_strictly_false', 'startsWith', 'endsWith', 'matches', ...ORDERING]);

/** cel-go's result type of the calls whose overloads all return one type, or whose operands' agreeing type is the result. */
function callResult(fn: string, args: Known[], argExprs: Expr[]): Known {
  if (BOOL_RESULTS.has(fn)) return { scalar: 'bool' };
  if (fn === 'size') return { scalar: 'int' };
  if (fn === '_[_]') return element(args[0]);
  const types = args.map((a, i) => literalType(argExprs[i]) ?? typeOf(a));
  if (fn === '_?_:_' && types[1] && types[1] === types[2]) return { scalar: types[1] };
  // optional.none() joins an optional of a known content (optMap's and optFlatMap's expansions)
  const [then, otherwise] = args.slice(1);
  if (fn === '_?_:_' && then && otherwise && 'optional' in then && 'optional' in otherwise) return then.optional ? then : otherwise;
  // lists joined (a map or filter step adds an element to its accumulator, an empty list at first): the elements' type
  if ((fn === '_+_' || fn === '_?_:_') && args.length >= 2) {
    const [a, b] = fn === '_+_' ? args : args.slice(1);
    const lists = [a, b].map((x) => typeParam(x, 'list', 0) ?? (x && 'empty' in x ? 'empty' : null));
    if (lists.every((x) => x !== null)) {
      const elements = lists.filter((x) => x !== 'empty').map(typeNameOf);
      return { type: { name: 'list', params: [elements.length > 0 ? joinTypes(elements) : null] } };
    }
  }
  return null;
}

/** What indexing a list or map yields: a schema's items or values, a typed list's elements or map's values. */
function element(container: Known): Known {
  const s = container && 'schema' in container ? container.schema : undefined;
  if (s?.type === 'array' && s.items) return below(container as { name: string }, s.items, '@idx');
  if (typeof s?.additionalProperties === 'object') return below(container as { name: string }, s.additionalProperties, '@elem');
  return typeParam(container, 'list', 0) ?? typeParam(container, 'map', 1);
}

/**
 * A field of an object node by its CEL name, or undefined when the node does not declare it.
 * SchemaDeclType declares an object's properties only, whatever `x-kubernetes-preserve-unknown-fields`
 * says, and TypeMeta's and ObjectMeta's name fields at the resource's root (`resourceRoot`) and in
 * embedded resources (WithTypeAndObjectMeta).
 */
function fieldOf(object: { schema: JSONSchemaProps; name: string }, name: string, resourceRoot: JSONSchemaProps | null): Known | undefined {
  const s = object.schema;
  const property = Object.entries(s.properties ?? {}).find(([key]) => celPropertyName(key) === name)?.[1];
  const withMeta = s === resourceRoot || s['x-kubernetes-embedded-resource'] === true;
  if (withMeta && ROOT_FIELDS[name] && !property) return below(object, ROOT_FIELDS[name], name);
  if (property) return below(object, property, name);
  if (typeof s.additionalProperties === 'object') return below(object, s.additionalProperties, '@elem');
  return s.type === 'object' && s.additionalProperties !== true ? undefined : null;
}

/** The first issue of a rule at the schema node `self` (the root's `root`), and its result type. `hasFunction` says whether a library declares a function. */
export function checkRule(
  expr: Expr | undefined,
  positions: Record<string, number>,
  self: JSONSchemaProps,
  root: boolean,
  hasFunction: (name: string) => boolean,
  optionalOldSelf: boolean,
): CheckedRule {
  let issue: RuleIssue | null = null;
  const resourceRoot = root ? self : null;
  const at = (e: Expr): number => positions[String(e.id)] ?? 0;
  const fail = (offset: number, message: string): Known => {
    issue ??= { offset, message };
    return null;
  };
  const visit = (e: Expr | undefined, scope: Map<string, Known>): Known => {
    if (!e || issue) return null;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr': {
        const name = k.value.name;
        if (scope.has(name)) return scope.get(name)!;
        if (BUILTIN_IDENTIFIERS.has(name)) return null;
        return fail(at(e), `undeclared reference to '${name}' (in container '')`);
      }
      case 'selectExpr': {
        const operand = visit(k.value.operand, scope);
        // a selection on an optional value is an optional of the field (cel-go's checkSelect)
        const object = operand && 'optional' in operand && !k.value.testOnly ? operand.optional : operand;
        if (!object || !('schema' in object) || object.schema.type !== 'object') return k.value.testOnly ? { scalar: 'bool' } : null;
        const found = fieldOf(object, k.value.field, resourceRoot);
        // has(x.f) is reported at the macro's parenthesis, as cel-go's parser places it
        if (found === undefined) return fail(at(e) + (k.value.testOnly ? 3 : 0), `undefined field '${k.value.field}'`);
        if (k.value.testOnly) return { scalar: 'bool' };
        return object === operand ? found : { optional: found };
      }
      case 'callExpr': {
        const fn = k.value.function;
        const target = k.value.target;
        const qualified = target?.exprKind.case === 'identExpr' && !scope.has(target.exprKind.value.name) && hasFunction(`${target.exprKind.value.name}.${fn}`);
        const targetKnown = qualified ? null : visit(target, scope);
        const args = k.value.args.map((a) => visit(a, scope));
        if (issue) return null;
        if (fn === '_?._') {
          const operand = args[0] && 'optional' in args[0] ? args[0].optional : args[0];
          const name = k.value.args[1]?.exprKind;
          if (
            operand &&
            'schema' in operand &&
            operand.schema.type === 'object' &&
            name?.case === 'constExpr' &&
            name.value.constantKind.case === 'stringValue'
          ) {
            const found = fieldOf(operand, name.value.constantKind.value, resourceRoot);
            if (found === undefined) return fail(at(e), `undefined field '${name.value.constantKind.value}'`);
            return { optional: found };
          }
          return null;
        }
        if (fn === '_[?_]') {
          const container = args[0] && 'optional' in args[0] ? args[0].optional : args[0];
          const found = element(container);
          return found ? { optional: found } : null;
        }
        // cel-go places a call at its parenthesis, kapi's parser a member call at the dot before the name, a function at its name
        const paren = at(e) + (target ? 1 : 0) + fn.length;
        if (!qualified && !BUILTIN_FUNCTIONS.has(fn) && !hasFunction(fn)) return fail(paren, `undeclared reference to '${fn}' (in container '')`);
        if (OPERATORS.has(fn) && args.length === 2) {
          const [left, right] = k.value.args.map((a, i) => literalType(a) ?? typeOf(args[i]));
          const numericOrdering = ORDERING.has(fn) && NUMERIC.has(left ?? '') && NUMERIC.has(right ?? '');
          const arithmetic = ARITHMETIC_OVERLOADS[fn];
          const taken = arithmetic ? arithmetic[`${left},${right}`] !== undefined : left === right || numericOrdering;
          if (left && right && !taken) return fail(at(e), `found no matching overload for '${fn}' applied to '(${left}, ${right})'`);
          if (left && right && arithmetic) return { scalar: arithmetic[`${left},${right}`] };
          // equality of objects, lists and maps whose types are known to their elements: cel-go's equals(A, A)
          const [leftType, rightType] = args.map(typeNameOf);
          if ((fn === '_==_' || fn === '_!=_') && fullyTyped(leftType) && fullyTyped(rightType) && formatType(leftType) !== formatType(rightType))
            return fail(at(e), `found no matching overload for '${fn}' applied to '(${formatType(leftType)}, ${formatType(rightType)})'`);
        }
        const name = qualified && target?.exprKind.case === 'identExpr' ? `${target.exprKind.value.name}.${fn}` : fn;
        if (hasOverloads(name)) {
          const argTypes = k.value.args.map((a, i) => {
            const literal = literalType(a);
            return literal ? { name: literal } : typeNameOf(args[i]);
          });
          const resolved = resolveCall(name, target && !qualified ? typeNameOf(targetKnown) : undefined, argTypes);
          if (resolved.error) return fail(paren, resolved.error);
          // what an optional holds, or is made of, keeps its schema node
          if ((fn === 'value' || fn === 'orValue') && targetKnown && 'optional' in targetKnown && targetKnown.optional) return targetKnown.optional;
          if (OPTIONAL_MAKERS.has(name) && args[0]) return { optional: args[0] };
          if (resolved.result) return knownOf(resolved.result);
        }
        return callResult(fn, args, k.value.args);
      }
      case 'constExpr': {
        const scalar = literalType(e);
        return scalar ? { scalar } : null;
      }
      case 'listExpr': {
        const elements = k.value.elements.map((x) => visit(x, scope));
        // an empty list's elements take any type (cel-go: a type parameter), as a map or filter's accumulator starts
        return elements.length === 0
          ? { type: { name: 'list', params: [null] }, empty: true }
          : { type: { name: 'list', params: [joinTypes(elements.map(typeNameOf))] } };
      }
      case 'structExpr': {
        const keys: Known[] = [];
        const values: Known[] = [];
        k.value.entries.forEach((entry) => {
          if (entry.keyKind.case === 'mapKey') keys.push(visit(entry.keyKind.value, scope));
          values.push(visit(entry.value, scope));
        });
        return k.value.messageName ? null : { type: { name: 'map', params: [joinTypes(keys.map(typeNameOf)), joinTypes(values.map(typeNameOf))] } };
      }
      case 'comprehensionExpr': {
        const c = k.value;
        const range = visit(c.iterRange, scope);
        const rangeSchema = range && 'schema' in range ? range.schema : undefined;
        const list = rangeSchema?.type === 'array';
        const values = list ? rangeSchema?.items : typeof rangeSchema?.additionalProperties === 'object' ? rangeSchema.additionalProperties : undefined;
        const typedList = typeParam(range, 'list', 0);
        const typedMap = typeParam(range, 'map', 0);
        // a list's loop variables are its index and element, a map's its key and value; one variable is the element or key
        const key: Known = list || typedList ? { scalar: 'int' } : values ? { scalar: 'string' } : typedMap;
        const value: Known = values ? element(range) : (typedList ?? typeParam(range, 'map', 1));
        const inner = new Map(scope);
        // the accumulator keeps its initial value's type (all/exists: bool, existsOne: int, map/filter: a list)
        inner.set(c.accuVar, visit(c.accuInit, scope));
        if (c.iterVar2) {
          inner.set(c.iterVar, key);
          inner.set(c.iterVar2, value);
        } else {
          inner.set(c.iterVar, list || typedList ? value : key);
        }
        visit(c.loopCondition, inner);
        const step = visit(c.loopStep, inner);
        const result = visit(c.result, inner);
        // an accumulator built from an empty list (map, filter) has the type its step gives it, as cel-go's checker infers
        const returnsAccumulator = c.result?.exprKind.case === 'identExpr' && c.result.exprKind.value.name === c.accuVar;
        return returnsAccumulator && typeParam(step, 'list', 0) ? step : result;
      }
      default:
        return null;
    }
  };
  const selfKnown: Known = { schema: self, name: selfTypeName(self) };
  const scope = new Map<string, Known>([
    ['self', selfKnown],
    // with optionalOldSelf, oldSelf is an optional of self's type
    ['oldSelf', optionalOldSelf ? { optional: selfKnown } : selfKnown],
  ]);
  const result = visit(expr, scope);
  return { issue, resultType: issue ? null : resultTypeOf(result) };
}
