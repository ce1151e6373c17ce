/**
 * The overloads with a string receiver that kube's CRD environment declares (cel-go's standard
 * library, ext.Strings version 2 and Kubernetes' regex library), each as its argument types, so
 * the checker can refuse a call none of them accepts as cel-go's checker does.
 */
const STRING_METHODS: Record<string, string[][]> = {
  contains: [['string']],
  startsWith: [['string']],
  endsWith: [['string']],
  matches: [['string']],
  size: [[]],
  charAt: [['int']],
  indexOf: [['string'], ['string', 'int']],
  lastIndexOf: [['string'], ['string', 'int']],
  lowerAscii: [[]],
  upperAscii: [[]],
  trim: [[]],
  replace: [
    ['string', 'string'],
    ['string', 'string', 'int'],
  ],
  split: [['string'], ['string', 'int']],
  substring: [['int'], ['int', 'int']],
  find: [['string']],
  findAll: [['string'], ['string', 'int']],
};

/**
 * cel-go's `found no matching overload` text for a method call on a string whose argument types
 * (null: dyn, which any overload accepts) no overload takes, or null when one does or the method
 * is not one of these.
 */
export function stringMethodMismatch(fn: string, args: (string | null)[]): string | null {
  const overloads = STRING_METHODS[fn];
  if (!overloads) return null;
  const accepts = (params: string[]) => params.length === args.length && params.every((p, i) => args[i] === null || args[i] === p);
  if (overloads.some(accepts)) return null;
  return `found no matching overload for '${fn}' applied to 'string.(${args.map((a) => a ?? 'dyn').join(', ')})'`;
}
