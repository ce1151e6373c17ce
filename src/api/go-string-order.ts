/**
 * Go's order of strings: by the bytes of their UTF-8, as sort.Strings and every sorted label set,
 * selector and OpenAPI property list in kube-apiserver are ordered. localeCompare follows a
 * collation instead ("app" before "Tier", "_" before "-"), and JavaScript's `<` compares UTF-16
 * units, which puts a character above U+FFFF before one in U+E000-U+FFFF; this does neither.
 */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 unit's place in UTF-8's order: a surrogate (half of a character above U+FFFF) after every other unit. */
function utf8Rank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x10000 : unit;
}
