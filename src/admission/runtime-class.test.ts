import { mergeTolerations } from './runtime-class';

describe('mergeTolerations (tolerations.MergeTolerations)', () => {
  const exists = { key: 'k', operator: 'Exists', effect: 'NoSchedule' };
  const equal = { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' };

  test('a toleration another one covers is dropped, from either list', () => {
    expect(mergeTolerations([equal], [exists])).toEqual([exists]);
    expect(mergeTolerations([exists], [equal])).toEqual([exists]);
  });

  test('equal tolerations are kept once; unrelated ones all stay, in order', () => {
    const other = { key: 'o', operator: 'Exists' };
    expect(mergeTolerations([equal, other], [{ ...equal }])).toEqual([equal, other]);
  });

  test('an empty key with Exists covers every key; an empty effect covers every effect', () => {
    const all = { operator: 'Exists' };
    expect(mergeTolerations([equal, exists], [all])).toEqual([all]);
    expect(mergeTolerations([equal], [{ key: 'k', operator: 'Exists' }])).toEqual([{ key: 'k', operator: 'Exists' }]);
  });

  test('a NoExecute toleration with seconds covers only shorter ones; one without covers all', () => {
    const short = { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 };
    const long = { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 };
    expect(mergeTolerations([short], [long])).toEqual([long]);
    const forever = { key: 'k', operator: 'Exists', effect: 'NoExecute' };
    expect(mergeTolerations([long], [forever])).toEqual([forever]);
    expect(mergeTolerations([short, long], [])).toEqual([long]);
  });
});
