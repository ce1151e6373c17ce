/**
 * cel-go's words for an evaluation error of kapi's evaluator (cel-go common/types/err.go and
 * interpreter/attributes.go), so that what a client reads matches kube's message.
 */
const TRANSLATIONS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^found no matching overload\b/, () => 'no such overload'],
  [/^unbound function: (.*)$/, (m) => `no such overload: ${m[1]}`],
  [/^(?:int|uint) overflow\b/, () => 'integer overflow'],
  [/^(?:int|uint) divide by zero$/, () => 'division by zero'],
  [/^(?:int|uint) modulus by zero$/, () => 'modulus by zero'],
  [/^field not found: (.*)$/, (m) => `no such key: ${m[1]}`],
  [/^index (-?\d+) out of bounds\b/, (m) => `index out of bounds: ${m[1]}`],
];

export function celGoErrorText(message: string): string {
  for (const [pattern, text] of TRANSLATIONS) {
    const m = message.match(pattern);
    if (m) return text(m);
  }
  return message;
}
