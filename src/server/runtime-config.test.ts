import { BUILT_IN_RESOURCES } from '../resources';
import { parseFlags } from './config';
import { parseFeatureGates } from './feature-gates';
import { enabledGroupVersions, parseRuntimeConfigFlag, servedResources } from './runtime-config';

const REGISTERED = ['v1', 'apps/v1', 'batch/v1', 'admissionregistration.k8s.io/v1', 'admissionregistration.k8s.io/v1beta1'];
const enabled = (flag: string) => [...enabledGroupVersions(parseRuntimeConfigFlag(flag), REGISTERED)].sort();

describe('--runtime-config', () => {
  test('by default every group version but the default-off ones is enabled', () => {
    expect(enabled('')).toEqual(['admissionregistration.k8s.io/v1', 'apps/v1', 'batch/v1', 'v1']);
  });

  test('group/version=true, a bare key, api/beta and api/all enable; a group/version key wins over api/all', () => {
    expect(enabled('admissionregistration.k8s.io/v1beta1=true')).toContain('admissionregistration.k8s.io/v1beta1');
    expect(enabled('admissionregistration.k8s.io/v1beta1')).toContain('admissionregistration.k8s.io/v1beta1');
    expect(enabled('api/beta=true')).toContain('admissionregistration.k8s.io/v1beta1');
    expect(enabled('api/all=true,admissionregistration.k8s.io/v1beta1=false')).not.toContain('admissionregistration.k8s.io/v1beta1');
    expect(enabled('api/all=false')).toEqual([]);
  });

  test('keys of groups kapi does not have, and single resources, are ignored, as kube ignores them', () => {
    expect(enabled('example.com/v1=true,apps/v1/deployments=false')).toEqual(enabled(''));
  });

  test.each([
    ['api/all=maybe', 'invalid value api/all=maybe'],
    ['api/beta', 'invalid value api/beta='],
    ['apps/v9=true', 'group version apps/v9 that has not been registered'],
    ['apps/=true', 'invalid key apps/'],
    ['apps/v1=maybe', 'invalid value of apps/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
  ])("%s is refused with kube's message", (flag, message) => {
    expect(() => enabled(flag)).toThrow(message);
    expect(() => parseFlags([`--runtime-config=${flag}`])).toThrow(message);
  });

  test('mutating admission policies: v1 served while their gate is on (GA in 1.36, on by default), v1beta1 also needs admissionregistration.k8s.io/v1beta1', () => {
    const served = (flag: string, gates: string) =>
      servedResources(BUILT_IN_RESOURCES, parseRuntimeConfigFlag(flag), parseFeatureGates(gates))
        .filter((d) => d.resource === 'mutatingadmissionpolicies')
        .map((d) => d.version);
    expect(served('', '')).toEqual(['v1']);
    expect(served('', 'MutatingAdmissionPolicy=false')).toEqual([]);
    expect(served('admissionregistration.k8s.io/v1beta1=true', '')).toEqual(['v1', 'v1beta1']);
    expect(served('admissionregistration.k8s.io/v1beta1=true', 'MutatingAdmissionPolicy=false')).toEqual([]);
    expect(parseFlags(['--runtime-config=admissionregistration.k8s.io/v1beta1=true'])).toMatchObject({
      runtimeConfig: { 'admissionregistration.k8s.io/v1beta1': 'true' },
    });
  });
});
