import { fieldErrorMessage } from '../../api/field-errors';
import { levelVersionText, policyFromLabels } from './levels';

const P = 'pod-security.kubernetes.io/';

describe('policyFromLabels', () => {
  test('no labels: privileged:latest in every mode', () => {
    const { policy, errors } = policyFromLabels(undefined);
    expect([policy.enforce, policy.audit, policy.warn].map(levelVersionText)).toEqual(['privileged:latest', 'privileged:latest', 'privileged:latest']);
    expect(errors).toEqual([]);
  });

  test('warn follows an explicit stricter enforce level and its version', () => {
    const { policy } = policyFromLabels({ [`${P}enforce`]: 'baseline', [`${P}enforce-version`]: 'v1.30', [`${P}audit`]: 'restricted' });
    expect([policy.enforce, policy.audit, policy.warn].map(levelVersionText)).toEqual(['baseline:v1.30', 'restricted:latest', 'baseline:v1.30']);
    const own = policyFromLabels({ [`${P}enforce`]: 'restricted', [`${P}warn`]: 'baseline' }).policy;
    expect(levelVersionText(own.warn)).toBe('baseline:latest');
  });

  test('bad values: enforce falls to restricted, audit and warn open to privileged, versions to latest', () => {
    const { policy, errors } = policyFromLabels({
      [`${P}enforce`]: 'strict',
      [`${P}warn`]: 'loud',
      [`${P}audit-version`]: '1.30',
      [`${P}enforce-version`]: 'v1.05',
    });
    expect([policy.enforce, policy.audit, policy.warn].map(levelVersionText)).toEqual(['restricted:latest', 'privileged:latest', 'privileged:latest']);
    expect(errors.map(fieldErrorMessage)).toEqual([
      `metadata.labels[${P}enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`,
      `metadata.labels[${P}enforce-version]: Invalid value: "v1.05": must be "latest" or "v1.x"`,
      `metadata.labels[${P}audit-version]: Invalid value: "1.30": must be "latest" or "v1.x"`,
      `metadata.labels[${P}warn]: Invalid value: "loud": must be one of privileged, baseline, restricted`,
    ]);
  });
});
