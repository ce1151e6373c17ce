import type { KubeObject } from '../api/types';
import { defaultJob, generateSelector, validateGeneratedSelector, validateJobSpecUpdate } from './job-spec';

function job(spec: Record<string, unknown>, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default', uid: 'u-1', labels }, spec };
}

const podTemplate = () => ({ spec: { containers: [{ name: 'pi', image: 'perl' }], restartPolicy: 'Never' } });

describe('SetDefaults_Job', () => {
  test('a job with neither completions nor parallelism runs one pod once', () => {
    const j = job({ template: podTemplate() });
    defaultJob(j);
    expect(j.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
    });
    expect((j.spec as Record<string, unknown>).manualSelector).toBeUndefined();
  });

  test('parallelism alone leaves completions unset; a pod failure policy asks for Failed replacement; per-index backoff lifts backoffLimit', () => {
    const j = job({
      parallelism: 3,
      backoffLimitPerIndex: 1,
      podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
      template: podTemplate(),
    });
    defaultJob(j);
    expect(j.spec).toMatchObject({ parallelism: 3, backoffLimit: 2147483647, podReplacementPolicy: 'Failed' });
    expect((j.spec as Record<string, unknown>).completions).toBeUndefined();
    expect(j.spec).toMatchObject({ podFailurePolicy: { rules: [{ onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] } });
  });

  test("the job takes its template's labels when it has none of its own", () => {
    const own = job({ template: { ...podTemplate(), metadata: { labels: { app: 'x' } } } }, { team: 'a' });
    defaultJob(own);
    expect(own.metadata.labels).toEqual({ team: 'a' });
    const bare = job({ template: { ...podTemplate(), metadata: { labels: { app: 'x' } } } });
    defaultJob(bare);
    expect(bare.metadata.labels).toEqual({ app: 'x' });
  });
});

describe('generated selectors', () => {
  test('the selector picks the uid; the template gets the name and uid, prefixed and legacy', () => {
    const j = job({ template: podTemplate() });
    generateSelector(j);
    expect(j.spec).toMatchObject({
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
      template: {
        metadata: { labels: { 'batch.kubernetes.io/controller-uid': 'u-1', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u-1', 'job-name': 'pi' } },
      },
    });
    expect(validateGeneratedSelector(j)).toEqual([]);
  });

  test('a manual selector is left alone', () => {
    const j = job({ manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: podTemplate() });
    generateSelector(j);
    expect(j.spec).toMatchObject({ selector: { matchLabels: { app: 'x' } } });
    expect(validateGeneratedSelector(j)).toEqual([]);
  });

  test('a clashing job-name label is kept and refused', () => {
    const j = job({ template: { ...podTemplate(), metadata: { labels: { 'job-name': 'other' } } } });
    generateSelector(j);
    expect(validateGeneratedSelector(j).map((e) => `${e.field}: ${e.detail ?? ''}`)).toEqual(["spec.template.metadata.labels[job-name]: must be 'pi'"]);
  });
});

describe('ValidateJobSpecUpdate', () => {
  const created = (): KubeObject => {
    const j = job({ template: podTemplate() });
    generateSelector(j);
    defaultJob(j);
    return j;
  };

  test('completions, selector and template are immutable', () => {
    const prev = created();
    const next = structuredClone(prev);
    const spec = next.spec as Record<string, any>;
    spec.completions = 2;
    spec.selector = { matchLabels: { a: 'b' } };
    spec.template.spec.containers[0].image = 'perl:2';
    expect(validateJobSpecUpdate(next, prev).map((e) => `${e.field}: ${e.detail ?? ''}`)).toEqual([
      'spec.completions: field is immutable',
      'spec.selector: field is immutable',
      'spec.template: field is immutable',
    ]);
  });

  test('a suspended job that never started may change its scheduling directives, nothing else in the template', () => {
    const prev = created();
    (prev.spec as Record<string, unknown>).suspend = true;
    const next = structuredClone(prev);
    const template = (next.spec as Record<string, any>).template;
    template.spec.nodeSelector = { zone: 'a' };
    template.spec.tolerations = [{ key: 'gpu', operator: 'Exists' }];
    template.metadata.annotations = { note: 'x' };
    expect(validateJobSpecUpdate(next, prev)).toEqual([]);
    template.spec.containers[0].image = 'perl:2';
    expect(validateJobSpecUpdate(next, prev).map((e) => e.field)).toEqual(['spec.template']);
    (prev.status as unknown) = { startTime: '2024-01-01T00:00:00Z' };
    template.spec.containers[0].image = 'perl';
    expect(validateJobSpecUpdate(next, prev).map((e) => e.field)).toEqual(['spec.template']);
  });

  test('an indexed job may change completions together with parallelism', () => {
    const prev = job({ completionMode: 'Indexed', completions: 2, parallelism: 2, template: podTemplate() });
    const next = structuredClone(prev);
    Object.assign(next.spec as object, { completions: 3, parallelism: 3 });
    expect(validateJobSpecUpdate(next, prev)).toEqual([]);
    Object.assign(next.spec as object, { completions: 4 });
    expect(validateJobSpecUpdate(next, prev).map((e) => e.detail)).toEqual(['can only be modified in tandem with spec.parallelism']);
  });
});
