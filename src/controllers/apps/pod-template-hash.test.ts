import type { PodTemplateSpec } from '../../generated/types/core/v1';
import { computeHash } from './pod-template-hash';

const template = (image: string): PodTemplateSpec => ({ metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [{ name: 'c', image }] } });

test('the hash is stable, independent of key order, in the safe alphabet, and changed by the template and the collision count', () => {
  const a = computeHash(template('nginx'));
  expect(a).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  expect(computeHash(template('nginx'))).toBe(a);
  expect(computeHash({ spec: { containers: [{ image: 'nginx', name: 'c' }] }, metadata: { labels: { tier: 'front', app: 'web' } } })).toBe(a);
  expect(computeHash(template('nginx:1.27'))).not.toBe(a);
  expect(computeHash(template('nginx'), 1)).not.toBe(a);
  expect(computeHash(template('nginx'), 1)).not.toBe(computeHash(template('nginx'), 2));
});
