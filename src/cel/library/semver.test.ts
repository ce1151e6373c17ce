import { evaluate } from './test-eval';

describe('semver library', () => {
  test.each([
    ["isSemver('1.0.0') && isSemver('0.1.0-alpha.1+build.5')", true],
    ["isSemver('hello') || isSemver('v1.0') || isSemver('1.0') || isSemver('01.0.0')", false],
    ["isSemver('v1.0', true) && isSemver('01.01.01', true) && isSemver('1', true) && isSemver('1.1', true)", true],
    ["isSemver(' 1.0.0') || isSemver('1. 0.0') || isSemver('1.0.0 ') || isSemver('v1.0.0') || isSemver('')", false],
    ["isSemver('', true) || isSemver(' 1.0.0', true) || isSemver('1. 0.0', true) || isSemver('1.0.0 ', true)", false],
    ["semver('v01.01', true) == semver('1.1.0')", true],
    ["semver('v1.0.0', true) == semver('1.0.0')", true],
    ["semver('1.0', true) == semver('1.0.0')", true],
    ["semver('01.01.01', true) == semver('1.1.1')", true],
    ["semver('1.2.3+build') == semver('1.2.3')", true],
    ["semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3", true],
    ["semver('1.2.3').compareTo(semver('1.2.3'))", 0],
    ["semver('1.2.3').compareTo(semver('2.0.0'))", -1],
    ["semver('1.2.3').compareTo(semver('0.1.2'))", 1],
    ["semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))", true],
    ["semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta'))", true],
    ["semver('1.0.0-2').isLessThan(semver('1.0.0-11'))", true],
    ["semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))", true],
    ["semver('2.0.0').isGreaterThan(semver('1.9.9'))", true],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test.each([
    ["semver('1.0')", 'No Major.Minor.Patch elements found'],
    ["semver('', true)", 'strconv.ParseUint: parsing "": invalid syntax'],
    ["semver('1.0.0 ')", 'Invalid character(s) found in patch number "0 "'],
    ["semver('')", 'Version string empty'],
    ["semver('a.0.0')", 'Invalid character(s) found in major number "a"'],
    ["semver('01.0.0')", 'Major number must not contain leading zeroes "01"'],
    ["semver('1.0.0-01')", 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ["semver('1.0.0-a..b')", 'Prerelease is empty'],
    ["semver('1.0-rc', true)", 'short version cannot contain PreRelease/Build meta data'],
  ])('%s is an error', (source, message) => {
    expect(evaluate(source)).toEqual({ error: message });
  });
});
