import { CelScalar } from '@bufbuild/cel';
import { field, func, typedMethod, typedValue, type Overload, type TypedValue } from './typed-values';

/**
 * Kubernetes' semver library at version 1 (apiserver/pkg/cel/library/semverlib.go, as
 * environment/base.go enables it from 1.33): `semver()` and `isSemver()`, each with the
 * `normalize` flag, and on a version `major`, `minor`, `patch`, `compareTo`, `isGreaterThan`,
 * `isLessThan`. Parsing follows github.com/blang/semver/v4 and its error texts. A version is kept
 * without its build metadata, so `==` is Version.EQ, which ignores it.
 */

const { STRING, BOOL, INT } = CelScalar;
const KIND = 'semver';

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string[];
}

const NUMERIC = /^[0-9]+$/;
const ALPHANUMERIC = /^[0-9A-Za-z-]+$/;
const UINT64_MAX = 2n ** 64n - 1n;
const q = (s: string) => JSON.stringify(s);

function number(text: string, name: string): bigint {
  if (text === '') throw new Error('strconv.ParseUint: parsing "": invalid syntax');
  if (!NUMERIC.test(text)) throw new Error(`Invalid character(s) found in ${name} number ${q(text)}`);
  if (text.length > 1 && text.startsWith('0')) throw new Error(`${name[0].toUpperCase()}${name.slice(1)} number must not contain leading zeroes ${q(text)}`);
  const n = BigInt(text);
  if (n > UINT64_MAX) throw new Error(`strconv.ParseUint: parsing ${q(text)}: value out of range`);
  return n;
}

/** semver.Parse. */
export function parseSemver(s: string): Version {
  if (s === '') throw new Error('Version string empty');
  const parts = s.split('.');
  if (parts.length < 3) throw new Error('No Major.Minor.Patch elements found');
  const [majorText, minorText] = parts;
  const rest = parts.slice(2).join('.');
  const major = number(majorText, 'major');
  const minor = number(minorText, 'minor');
  const preAt = rest.indexOf('-');
  const buildAt = rest.indexOf('+');
  let end = rest.length;
  if (preAt >= 0) end = preAt;
  if (buildAt >= 0 && buildAt < end) end = buildAt;
  const patch = number(rest.slice(0, end), 'patch');
  let pre: string[] = [];
  let build: string[] = [];
  if (preAt >= 0 && (buildAt < 0 || preAt < buildAt)) {
    const preText = buildAt >= 0 ? rest.slice(preAt + 1, buildAt) : rest.slice(preAt + 1);
    pre = preText.split('.');
    for (const p of pre) {
      if (p === '') throw new Error('Prerelease is empty');
      if (NUMERIC.test(p)) {
        if (p.length > 1 && p.startsWith('0')) throw new Error(`Numeric PreRelease version must not contain leading zeroes ${q(p)}`);
      } else if (!ALPHANUMERIC.test(p)) {
        throw new Error(`Invalid character(s) found in prerelease ${q(p)}`);
      }
    }
  }
  if (buildAt >= 0) {
    build = rest.slice(buildAt + 1).split('.');
    for (const b of build) {
      if (b === '') throw new Error('Build meta data is empty');
      if (!ALPHANUMERIC.test(b)) throw new Error(`Invalid character(s) found in build meta data ${q(b)}`);
    }
  }
  return { major, minor, patch, pre };
}

/** library.normalizeAndParse: no "v" prefix, missing minor and patch as 0, no leading zeros. */
export function normalizeAndParse(text: string): Version {
  const s = text.startsWith('v') ? text.slice(1) : text;
  const [a, b, ...rest] = s.split('.');
  const parts = [a, ...(b === undefined ? [] : [b]), ...(rest.length ? [rest.join('.')] : [])].map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, '');
    return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1])) throw new Error('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

const semverValue = (v: Version): TypedValue => typedValue(KIND, { version: `${v.major}.${v.minor}.${v.patch}${v.pre.length ? `-${v.pre.join('.')}` : ''}` });
const versionOf = (value: unknown): Version => parseSemver(field<string>(value, 'version'));

function comparePart(a: string, b: string): number {
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an && bn) return Math.sign(Number(BigInt(a) - BigInt(b)));
  if (an) return -1;
  if (bn) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Version.Compare: numbers, then a version without prerelease above one with it, then the prerelease fields in turn. */
export function compareSemver(a: Version, b: Version): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] > b[k] ? 1 : -1;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = comparePart(a.pre[i], b.pre[i]);
    if (c !== 0) return c;
  }
  return Math.sign(a.pre.length - b.pre.length);
}

const parse = (text: string, normalize: boolean) => (normalize ? normalizeAndParse(text) : parseSemver(text));
function isValid(text: string, normalize: boolean): boolean {
  try {
    parse(text, normalize);
    return true;
  } catch {
    return false;
  }
}
const compare = (a: unknown, b: unknown) => compareSemver(versionOf(a), versionOf(b));

export const semverLibrary: Overload[] = [
  func('semver', [STRING], KIND, (text: string) => semverValue(parseSemver(text))),
  func('semver', [STRING, BOOL], KIND, (text: string, normalize: boolean) => semverValue(parse(text, normalize))),
  func('isSemver', [STRING], BOOL, (text: string) => isValid(text, false)),
  func('isSemver', [STRING, BOOL], BOOL, isValid),
  typedMethod(KIND, 'major', [], INT, (v) => versionOf(v).major),
  typedMethod(KIND, 'minor', [], INT, (v) => versionOf(v).minor),
  typedMethod(KIND, 'patch', [], INT, (v) => versionOf(v).patch),
  typedMethod(KIND, 'compareTo', [KIND], INT, (a, b) => BigInt(compare(a, b))),
  typedMethod(KIND, 'isGreaterThan', [KIND], BOOL, (a, b) => compare(a, b) === 1),
  typedMethod(KIND, 'isLessThan', [KIND], BOOL, (a, b) => compare(a, b) === -1),
];
