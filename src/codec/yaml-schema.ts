import { boolYaml11Tag, CORE_SCHEMA, defineScalarTag, mergeTag, NOT_RESOLVED } from 'js-yaml';

/**
 * How plain scalars resolve in a YAML body, as go.yaml.in/yaml/v2 (under sigs.k8s.io/yaml) reads
 * them into interface{}: YAML 1.1's booleans (`yes`, `on`, `y`, any of their three spellings), merge
 * keys (`<<`), integers as strconv.ParseInt reads them with base 0 once underscores are gone
 * (`0x1F`, `0o17`, `017` octal, `0b101`, `1_000`), and floats by yaml.v2's pattern (`1e3`, `.5`,
 * `.inf`, `.nan`), and `!!binary` as the string of its bytes. Timestamps stay strings, as yaml.v2
 * leaves them in an interface{}.
 */

/** strconv.ParseInt(s, 0, 64)'s syntax: a sign, then a base prefix and its digits, or decimal digits. */
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/;
/** yaml.v2's yamlStyleFloat. */
const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INFINITIES = new Set(['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']);
const NEGATIVE_INFINITIES = new Set(['-.inf', '-.Inf', '-.INF']);
const NANS = new Set(['.nan', '.NaN', '.NAN']);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function goInt(plain: string): number | typeof NOT_RESOLVED {
  if (!GO_INT.test(plain)) return NOT_RESOLVED;
  const negative = plain.startsWith('-');
  let digits = plain.replace(/^[-+]/, '');
  // BigInt reads 0x, 0o and 0b; Go's bare leading zero is octal too.
  if (/^0[0-7]/.test(digits)) digits = `0o${digits.slice(1)}`;
  const magnitude = BigInt(digits);
  // ParseInt, else ParseUint for a non-negative value up to 2^64-1; past both, not an int.
  if (negative ? magnitude > INT64_MAX + 1n : magnitude > UINT64_MAX) return NOT_RESOLVED;
  return Number(negative ? -magnitude : magnitude);
}

/** yaml.v2 tries a scalar as an integer only when it starts with a digit or a sign (resolveTable's 'D' and 'S'). */
const NUMERIC_START = /^[0-9+-]/;
/** Longer digit runs overflow uint64 in any base ParseInt reads (64 binary digits and a prefix): not an integer. */
const MAX_INT_CHARS = 70;

const intTag = defineScalarTag<number>('tag:yaml.org,2002:int', {
  implicit: true,
  implicitFirstChars: null,
  resolve: (source) => {
    if (!NUMERIC_START.test(source)) return NOT_RESOLVED;
    const plain = source.replace(/_/g, '');
    return plain.length > MAX_INT_CHARS ? NOT_RESOLVED : goInt(plain);
  },
  identify: (data) => typeof data === 'number' && Number.isInteger(data),
});

const floatTag = defineScalarTag<number>('tag:yaml.org,2002:float', {
  implicit: true,
  implicitFirstChars: null,
  resolve: (source) => {
    if (INFINITIES.has(source)) return Infinity;
    if (NEGATIVE_INFINITIES.has(source)) return -Infinity;
    if (NANS.has(source)) return NaN;
    // A leading '.' is tried as strconv.ParseFloat reads it, underscores and all; a digit or sign
    // after dropping underscores, by yaml.v2's pattern. Out of range (1e400) ParseFloat fails: a string.
    const plain = source.startsWith('.') ? source : NUMERIC_START.test(source) ? source.replace(/_/g, '') : null;
    if (plain === null || !YAML_STYLE_FLOAT.test(plain)) return NOT_RESOLVED;
    const value = Number(plain);
    return Number.isFinite(value) ? value : NOT_RESOLVED;
  },
  identify: (data) => typeof data === 'number' && !Number.isInteger(data),
});

/** An explicit !!binary scalar: yaml.v2 decodes its base64 into a Go string of those bytes. */
const binaryTag = defineScalarTag<string>('tag:yaml.org,2002:binary', {
  resolve: (source) => {
    const base64 = source.replace(/\s/g, '');
    return /^[A-Za-z0-9+/]*={0,2}$/.test(base64) && base64.length % 4 === 0 ? Buffer.from(base64, 'base64').toString('utf8') : NOT_RESOLVED;
  },
  identify: () => false,
});

export const GO_YAML_SCHEMA = CORE_SCHEMA.withTags(boolYaml11Tag, intTag, floatTag, mergeTag, binaryTag);
