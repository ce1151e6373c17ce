/**
 * kube's version ordering, as apimachinery's version.CompareKubeAwareVersionStrings: GA before beta
 * before alpha, higher numbers first, versions of no such shape last by name. Used where kube sorts
 * versions that carry no priority of their own (a CRD group's, among APIServices of equal priority).
 */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return null;
    return { major: Number(m[1]), stage: m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2, minor: m[3] ? Number(m[3]) : 0 };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && !pb) return -1;
  if (!pa && pb) return 1;
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}
