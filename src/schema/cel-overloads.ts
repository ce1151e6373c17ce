import type { JSONSchemaProps } from './json-schema-props';

/**
 * The overloads of the library functions and methods kube's CRD environment declares, as cel-go's
 * checker sees them (apiserver/pkg/cel/environment/base.go at 1.36): the standard library's string
 * and size functions, ext.Strings version 2, ext.Sets, ext.Lists version 3 and Kubernetes' lists,
 * regex, quantity, IP, CIDR, URL, semver and format libraries, the standard type conversions and
 * timestamp and duration accessors, the arithmetic between scalars, and cel.OptionalTypes' functions. With them the rule checker
 * types a call's result and refuses a call no overload takes (cel-go's `found no matching overload`).
 */

/** A type as cel-go's checker names it; a parameter kapi does not know is null. */
export interface CelTypeName {
  name: string;
  params?: (CelTypeName | null)[];
  /** The schema node an object type stands for, which a call's result keeps (`l.first().value().f`). */
  schema?: JSONSchemaProps;
}

interface Overload {
  /** The receiver's type of a method (`x.f()`), absent for a function (`f(x)`). */
  target?: CelTypeName;
  args: CelTypeName[];
  result: CelTypeName;
}

/** Parses a type as cel-go prints it (`list(T)`, `map(string, list(string))`); a single capital letter is a type parameter. */
function parseType(text: string): CelTypeName {
  let at = 0;
  const read = (): CelTypeName => {
    const name = /^[\w.]+/.exec(text.slice(at))![0];
    at += name.length;
    if (text[at] !== '(') return { name };
    const params: CelTypeName[] = [];
    do {
      at++;
      while (text[at] === ' ') at++;
      params.push(read());
    } while (text[at] === ',');
    at++;
    return { name, params };
  };
  return read();
}

const isParam = (t: CelTypeName): boolean => /^[A-Z]$/.test(t.name);

const OVERLOADS = new Map<string, Overload[]>();

/** Declares overloads in cel-go's notation: `string.indexOf(string) -> int` for a method, `quantity(string) -> kubernetes.Quantity` for a function. */
function declare(...signatures: string[]): void {
  for (const signature of signatures) {
    const [call, result] = signature.split(' -> ');
    const open = matchingOpen(call);
    const head = call.slice(0, open);
    const dot = head.lastIndexOf('.');
    const receiver = dot < 0 ? undefined : head.slice(0, dot);
    const qualified = receiver !== undefined && NAMESPACES.has(receiver);
    const name = qualified || receiver === undefined ? head : head.slice(dot + 1);
    const args = call.slice(open + 1, -1);
    const overload: Overload = { args: args ? splitTypes(args).map(parseType) : [], result: parseType(result) };
    if (receiver !== undefined && !qualified) overload.target = parseType(receiver);
    OVERLOADS.set(name, [...(OVERLOADS.get(name) ?? []), overload]);
  }
}

/** The offset of the parenthesis that opens a call's argument list (the one matching its last character). */
function matchingOpen(call: string): number {
  let depth = 0;
  for (let i = call.length - 1; i >= 0; i--) {
    if (call[i] === ')') depth++;
    else if (call[i] === '(' && --depth === 0) return i;
  }
  return -1;
}

/** Splits top-level comma-separated types. */
function splitTypes(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

/** The namespaces of qualified functions (`lists.range`, `sets.contains`, `ip.isCanonical`), which are no receiver's type. */
const NAMESPACES = new Set(['lists', 'sets', 'ip', 'strings', 'optional', 'format']);

export const TIMESTAMP = 'google.protobuf.Timestamp';
export const DURATION = 'google.protobuf.Duration';
/** cel-go ext/lists.go comparableTypes and kube's lists.go summableTypes. */
const COMPARABLE = ['int', 'uint', 'double', 'bool', DURATION, TIMESTAMP, 'string', 'bytes'];
const SUMMABLE = ['int', 'uint', 'double', DURATION];
const each = (types: string[], signature: (t: string) => string): string[] => types.map(signature);

const sameTyped = (...types: string[]): Record<string, string> => Object.fromEntries(types.map((t) => [`${t},${t}`, t]));
/** cel-go stdlib's arithmetic overloads between scalars: the operands' types to the result's. */
export const ARITHMETIC_OVERLOADS: Record<string, Record<string, string>> = {
  '_+_': {
    ...sameTyped('int', 'uint', 'double', 'string', 'bytes', DURATION),
    [`${TIMESTAMP},${DURATION}`]: TIMESTAMP,
    [`${DURATION},${TIMESTAMP}`]: TIMESTAMP,
  },
  '_-_': { ...sameTyped('int', 'uint', 'double', DURATION), [`${TIMESTAMP},${TIMESTAMP}`]: DURATION, [`${TIMESTAMP},${DURATION}`]: TIMESTAMP },
  '_*_': sameTyped('int', 'uint', 'double'),
  '_/_': sameTyped('int', 'uint', 'double'),
  '_%_': sameTyped('int', 'uint'),
};

/** cel-go stdlib's conversions: each function's argument types (its result is the function's own type). */
const CONVERSIONS: Record<string, [string, string[]]> = {
  int: ['int', ['int', 'double', DURATION, 'string', TIMESTAMP, 'uint']],
  uint: ['uint', ['uint', 'double', 'int', 'string']],
  double: ['double', ['double', 'int', 'string', 'uint']],
  bool: ['bool', ['bool', 'string']],
  bytes: ['bytes', ['bytes', 'string']],
  string: ['string', ['string', 'bool', 'bytes', 'double', DURATION, 'int', TIMESTAMP, 'uint']],
  duration: [DURATION, [DURATION, 'int', 'string']],
  timestamp: [TIMESTAMP, [TIMESTAMP, 'int', 'string']],
};
/** cel-go stdlib's timestamp accessors (each also with a time zone argument), and those durations have too. */
const TIMESTAMP_ACCESSORS = ['getFullYear', 'getMonth', 'getDayOfYear', 'getDayOfMonth', 'getDate', 'getDayOfWeek'];
const CLOCK_ACCESSORS = ['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];
const NAMED_FORMAT = 'kubernetes.NamedFormat';
/** Kubernetes' format library's constant formats (library.ConstantFormats). */
const FORMAT_NAMES = [
  'dns1123Label',
  'dns1123Subdomain',
  'dns1035Label',
  'qualifiedName',
  'dns1123LabelPrefix',
  'dns1123SubdomainPrefix',
  'dns1035LabelPrefix',
  'labelValue',
  'uri',
  'uuid',
  'byte',
  'date',
  'datetime',
];

const Q = 'kubernetes.Quantity';
const SEMVER = 'kubernetes.Semver';
const URL = 'kubernetes.URL';
const IP = 'net.IP';
const CIDR = 'net.CIDR';

declare(
  // the standard library's conversions and timestamp and duration accessors
  ...Object.entries(CONVERSIONS).flatMap(([fn, [result, from]]) => from.map((t) => `${fn}(${t}) -> ${result}`)),
  'dyn(A) -> dyn',
  '@in(A, list(A)) -> bool',
  '@in(A, map(A, B)) -> bool',
  'type(A) -> type(A)',
  ...[...TIMESTAMP_ACCESSORS, ...CLOCK_ACCESSORS].flatMap((fn) => [`${TIMESTAMP}.${fn}() -> int`, `${TIMESTAMP}.${fn}(string) -> int`]),
  ...CLOCK_ACCESSORS.map((fn) => `${DURATION}.${fn}() -> int`),
  // the standard library's size and string methods
  'size(string) -> int',
  'size(bytes) -> int',
  'size(list(T)) -> int',
  'size(map(K, V)) -> int',
  'string.size() -> int',
  'bytes.size() -> int',
  'list(T).size() -> int',
  'map(K, V).size() -> int',
  'string.contains(string) -> bool',
  'string.startsWith(string) -> bool',
  'string.endsWith(string) -> bool',
  'string.matches(string) -> bool',
  'matches(string, string) -> bool',
  // ext.Strings version 2
  'string.charAt(int) -> string',
  'string.indexOf(string) -> int',
  'string.indexOf(string, int) -> int',
  'string.lastIndexOf(string) -> int',
  'string.lastIndexOf(string, int) -> int',
  'string.lowerAscii() -> string',
  'string.upperAscii() -> string',
  'string.trim() -> string',
  'string.replace(string, string) -> string',
  'string.replace(string, string, int) -> string',
  'string.split(string) -> list(string)',
  'string.split(string, int) -> list(string)',
  'string.substring(int) -> string',
  'string.substring(int, int) -> string',
  'string.format(list(dyn)) -> string',
  'list(string).join() -> string',
  'list(string).join(string) -> string',
  'strings.quote(string) -> string',
  // Kubernetes' regex library
  'string.find(string) -> string',
  'string.findAll(string) -> list(string)',
  'string.findAll(string, int) -> list(string)',
  // Kubernetes' lists library
  ...each(COMPARABLE, (t) => `list(${t}).isSorted() -> bool`),
  ...each(SUMMABLE, (t) => `list(${t}).sum() -> ${t}`),
  ...each(COMPARABLE, (t) => `list(${t}).min() -> ${t}`),
  ...each(COMPARABLE, (t) => `list(${t}).max() -> ${t}`),
  'list(A).indexOf(A) -> int',
  'list(A).lastIndexOf(A) -> int',
  // ext.Lists version 3
  'list(T).slice(int, int) -> list(T)',
  'list(list(T)).flatten() -> list(T)',
  'list(dyn).flatten(int) -> list(dyn)',
  ...each(COMPARABLE, (t) => `list(${t}).sort() -> list(${t})`),
  ...each(COMPARABLE, (t) => `list(T).@sortByAssociatedKeys(list(${t})) -> list(T)`),
  'lists.range(int) -> list(int)',
  'list(T).reverse() -> list(T)',
  'list(T).distinct() -> list(T)',
  // cel.OptionalTypes version 2
  'optional.of(T) -> optional_type(T)',
  'optional.ofNonZeroValue(T) -> optional_type(T)',
  'optional.none() -> optional_type(T)',
  'optional_type(T).hasValue() -> bool',
  'optional_type(T).value() -> T',
  'optional_type(T).orValue(T) -> T',
  'optional_type(T).or(optional_type(T)) -> optional_type(T)',
  'list(T).first() -> optional_type(T)',
  'list(T).last() -> optional_type(T)',
  'optional.unwrap(list(optional_type(T))) -> list(T)',
  // ext.Sets
  'sets.contains(list(T), list(T)) -> bool',
  'sets.equivalent(list(T), list(T)) -> bool',
  'sets.intersects(list(T), list(T)) -> bool',
  // Kubernetes' quantity library
  `quantity(string) -> ${Q}`,
  'isQuantity(string) -> bool',
  `sign(${Q}) -> int`,
  `${Q}.isGreaterThan(${Q}) -> bool`,
  `${Q}.isLessThan(${Q}) -> bool`,
  `${Q}.compareTo(${Q}) -> int`,
  `${Q}.asApproximateFloat() -> double`,
  `${Q}.asInteger() -> int`,
  `${Q}.isInteger() -> bool`,
  `${Q}.add(${Q}) -> ${Q}`,
  `${Q}.add(int) -> ${Q}`,
  `${Q}.sub(${Q}) -> ${Q}`,
  `${Q}.sub(int) -> ${Q}`,
  // Kubernetes' semver library, version 1
  `semver(string) -> ${SEMVER}`,
  `semver(string, bool) -> ${SEMVER}`,
  'isSemver(string) -> bool',
  'isSemver(string, bool) -> bool',
  `${SEMVER}.isGreaterThan(${SEMVER}) -> bool`,
  `${SEMVER}.isLessThan(${SEMVER}) -> bool`,
  `${SEMVER}.compareTo(${SEMVER}) -> int`,
  `${SEMVER}.major() -> int`,
  `${SEMVER}.minor() -> int`,
  `${SEMVER}.patch() -> int`,
  // Kubernetes' URL library
  `url(string) -> ${URL}`,
  'isURL(string) -> bool',
  `${URL}.getScheme() -> string`,
  `${URL}.getHost() -> string`,
  `${URL}.getHostname() -> string`,
  `${URL}.getPort() -> string`,
  `${URL}.getEscapedPath() -> string`,
  `${URL}.getQuery() -> map(string, list(string))`,
  // Kubernetes' IP and CIDR libraries
  `ip(string) -> ${IP}`,
  'isIP(string) -> bool',
  'ip.isCanonical(string) -> bool',
  `${IP}.family() -> int`,
  `${IP}.isUnspecified() -> bool`,
  `${IP}.isLoopback() -> bool`,
  `${IP}.isLinkLocalMulticast() -> bool`,
  `${IP}.isLinkLocalUnicast() -> bool`,
  `${IP}.isGlobalUnicast() -> bool`,
  `cidr(string) -> ${CIDR}`,
  'isCIDR(string) -> bool',
  `${CIDR}.containsIP(string) -> bool`,
  `${CIDR}.containsIP(${IP}) -> bool`,
  `${CIDR}.containsCIDR(string) -> bool`,
  `${CIDR}.containsCIDR(${CIDR}) -> bool`,
  `${CIDR}.ip() -> ${IP}`,
  `${CIDR}.prefixLength() -> int`,
  `${CIDR}.masked() -> ${CIDR}`,
  // Kubernetes' format library
  `format.named(string) -> optional_type(${NAMED_FORMAT})`,
  ...FORMAT_NAMES.map((name) => `format.${name}() -> ${NAMED_FORMAT}`),
  `${NAMED_FORMAT}.validate(string) -> optional_type(list(string))`,
);

/** cel-go's FormatCELType; an unknown type prints as dyn, as cel-go's checker would have it without a declaration. */
export function formatType(t: CelTypeName | null): string {
  if (!t) return 'dyn';
  return t.params ? `${t.name}(${t.params.map(formatType).join(', ')})` : t.name;
}

/** Whether a type is one whose name kapi knows as cel-go prints it: a schema object's type has a name kube assigns. */
const nameable = (t: CelTypeName | null): boolean => !t || (t.name !== 'object' && (t.params ?? []).every(nameable));

type Bindings = Map<string, CelTypeName | null>;

/** mostGeneral: dyn or an unknown wins over a type. */
const mostGeneral = (a: CelTypeName | null, b: CelTypeName | null): CelTypeName | null => (!a || a.name === 'dyn' ? a : !b || b.name === 'dyn' ? b : a);

/** cel-go's isAssignable of an argument to a parameter, binding type parameters; an unknown type or dyn is assignable to anything. */
function assignable(param: CelTypeName, actual: CelTypeName | null, bindings: Bindings): boolean {
  if (isParam(param)) {
    if (!bindings.has(param.name)) {
      bindings.set(param.name, actual);
      return true;
    }
    const bound = bindings.get(param.name)!;
    if (bound && !assignable(bound, actual, new Map())) return false;
    bindings.set(param.name, mostGeneral(bound, actual));
    return true;
  }
  if (!actual || actual.name === 'dyn' || param.name === 'dyn') return true;
  if (param.name !== actual.name || (param.params?.length ?? 0) !== (actual.params?.length ?? 0)) return false;
  return (param.params ?? []).every((p, i) => p === null || assignable(p, actual.params![i], bindings));
}

function substitute(t: CelTypeName, bindings: Bindings): CelTypeName | null {
  // a parameter only an unknown argument could bind stays unknown
  if (isParam(t)) return bindings.get(t.name) ?? null;
  return t.params ? { name: t.name, params: t.params.map((p) => p && substitute(p, bindings)) } : t;
}

const known = (t: CelTypeName | null): boolean => t !== null && (t.params ?? []).every(known);

export interface ResolvedCall {
  /** cel-go's error when no overload takes the call's types (only where kapi can name them all). */
  error: string | null;
  /** The call's result type; null when not known (the function is not here, or kapi does not know enough to choose). */
  result: CelTypeName | null;
}

/**
 * checker.resolveOverload for a call of a function here: the overloads of its call style that take
 * its argument types; their common result type, or dyn where cel-go would join differing ones
 * (where kapi does not know an argument's type, a differing result stays unknown).
 */
export function resolveCall(fn: string, target: CelTypeName | null | undefined, args: (CelTypeName | null)[]): ResolvedCall {
  const overloads = OVERLOADS.get(fn);
  if (!overloads) return { error: null, result: null };
  const results: (CelTypeName | null)[] = [];
  for (const o of overloads) {
    if ((o.target === undefined) !== (target === undefined) || o.args.length !== args.length) continue;
    const bindings: Bindings = new Map();
    const params = o.target ? [o.target, ...o.args] : o.args;
    const actuals = target !== undefined ? [target, ...args] : args;
    if (params.every((p, i) => assignable(p, actuals[i], bindings))) results.push(substitute(o.result, bindings));
  }
  const all = target !== undefined ? [target, ...args] : args;
  if (results.length === 0) {
    if (!all.every(nameable)) return { error: null, result: null };
    const shown = `${target !== undefined ? `${formatType(target)}.` : ''}(${args.map(formatType).join(', ')})`;
    return { error: `found no matching overload for '${fn}' applied to '${shown}'`, result: null };
  }
  const [first] = results;
  if (results.every((r) => formatType(r) === formatType(first) && known(r) === known(first))) return { error: null, result: first };
  return { error: null, result: all.every(known) ? { name: 'dyn' } : null };
}

/** Whether the checker types this function's calls from the table. */
export const hasOverloads = (fn: string): boolean => OVERLOADS.has(fn);
