import { parseFlags } from './config';
import { deltaOf, minCompatibilityOf, parseEmulatedVersionFlag, parseMinCompatibilityVersionFlag, supportedMinors } from './emulated-version';

describe('--emulated-version', () => {
  test("accepts kube's spellings and answers component-base's errors for the others", () => {
    expect(parseEmulatedVersionFlag('1.34')).toEqual({ major: 1, minor: 34 });
    expect(parseEmulatedVersionFlag('kube=1.35')).toEqual({ major: 1, minor: 35 });
    expect(parseEmulatedVersionFlag('kube=1.36.0')).toEqual({ major: 1, minor: 36 });
    expect(() => parseEmulatedVersionFlag('1.34.2')).toThrow('patch version not allowed, got: kube=1.34.2');
    expect(() => parseEmulatedVersionFlag('1.34,kube=1.35')).toThrow('duplicate version flag, kube=1.34 and kube=1.35');
    expect(() => parseEmulatedVersionFlag('wardle=1.2')).toThrow('component not registered: wardle');
    expect(() => parseEmulatedVersionFlag('1.32')).toThrow('emulation version 1.32 is not between [1.33, 1.36.0]');
    expect(() => parseEmulatedVersionFlag('1.37')).toThrow('emulation version 1.37 is not between [1.33, 1.36.0]');
    expect(() => parseEmulatedVersionFlag('one')).toThrow('could not parse "one" as version');
    expect(parseEmulatedVersionFlag('1.33')).toEqual({ major: 1, minor: 33 });
  });

  test('kapi ships the facts of every minor kube 1.36 emulates: the binary minus three minors up to itself', () => {
    expect(supportedMinors()).toEqual(['1.33', '1.34', '1.35', '1.36']);
    expect(deltaOf({ major: 1, minor: 33 }).absentMessages).toContain('k8s.io.api.storage.v1.VolumeAttributesClass');
  });

  test('feature gate defaults follow the emulated version, whichever flag comes first, and an explicit gate wins', () => {
    const config = (...argv: string[]) => parseFlags(argv) as Exclude<ReturnType<typeof parseFlags>, 'help'>;
    expect(config().featureGates.MutatingAdmissionPolicy).toBe(true);
    expect(config('--emulated-version=1.35').featureGates.MutatingAdmissionPolicy).toBe(false);
    expect(config('--feature-gates=WatchList=false', '--emulated-version=1.34').featureGates).toMatchObject({
      MutatingAdmissionPolicy: false,
      WatchList: false,
    });
    expect(config('--feature-gates=MutatingAdmissionPolicy=true', '--emulated-version=1.34').featureGates.MutatingAdmissionPolicy).toBe(true);
  });

  test('--min-compatibility-version: one minor below the emulation by default (not below the floor), else between the floor and the emulation', () => {
    const v = (minor: number) => ({ major: 1, minor });
    expect(minCompatibilityOf(v(36), null)).toEqual(v(35));
    expect(minCompatibilityOf(v(33), null)).toEqual(v(33));
    expect(minCompatibilityOf(v(36), parseMinCompatibilityVersionFlag('kube=1.34'))).toEqual(v(34));
    expect(minCompatibilityOf(v(35), parseMinCompatibilityVersionFlag('1.35'))).toEqual(v(35));
    expect(() => minCompatibilityOf(v(34), parseMinCompatibilityVersionFlag('1.35'))).toThrow(
      'minCompatibilityVersion version 1.35 is not between [1.33, 1.34]',
    );
    expect(() => minCompatibilityOf(v(36), parseMinCompatibilityVersionFlag('1.32'))).toThrow(
      'minCompatibilityVersion version 1.32 is not between [1.33, 1.36]',
    );
    expect(() => parseMinCompatibilityVersionFlag('1.34.1')).toThrow('patch version not allowed, got: kube=1.34.1');
    const config = (...argv: string[]) => parseFlags(argv) as Exclude<ReturnType<typeof parseFlags>, 'help'>;
    expect(config('--min-compatibility-version=1.34').minCompatibilityVersion).toEqual(v(34));
    expect(() => config('--min-compatibility-version=1.36', '--emulated-version=1.35')).toThrow(
      'minCompatibilityVersion version 1.36 is not between [1.33, 1.35]',
    );
  });
});
