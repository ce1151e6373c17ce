import { evaluate } from './test-eval';

describe('quantity library', () => {
  test.each([
    ["isQuantity('1.3G') && isQuantity('1.3Gi') && isQuantity('10000k')", true],
    ["isQuantity('1,3G') || isQuantity('200K') || isQuantity('Three') || isQuantity('Mi')", false],
    ["quantity('1Gi') == quantity('1024Mi')", true],
    ["quantity('1Gi') == quantity('1G')", false],
    ["quantity('200M').compareTo(quantity('0.2G'))", 0],
    ["quantity('50M').compareTo(quantity('50Mi'))", -1],
    ["quantity('50Mi').compareTo(quantity('50M'))", 1],
    ["quantity('150Mi').isGreaterThan(quantity('100Mi'))", true],
    ["quantity('50M').isLessThan(quantity('100M'))", true],
    ["quantity('100M').isLessThan(quantity('50M'))", false],
    ["quantity('50k').add(quantity('20k')) == quantity('70k')", true],
    ["quantity('50k').add(20) == quantity('50020')", true],
    ["quantity('50k').sub(quantity('20k')) == quantity('30k')", true],
    ["quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')", true],
    ["quantity('50000000G').isInteger() && quantity('50k').isInteger()", true],
    ["quantity('9999999999999999999999999999999999999G').isInteger() || quantity('500m').isInteger()", false],
    ["quantity('50k').asInteger()", 50000],
    ["quantity('1.5Gi').asInteger()", 1610612736],
    ["quantity('50k').sub(20000).asApproximateFloat()", 30000],
    ["quantity('-5').sign()", -1],
    ["sign(quantity('-5m'))", -1],
    ["quantity('50k').add(quantity('20')) == quantity('50.02k')", true],
    ["quantity('50k').sub(quantity('20')) == quantity('49.98k')", true],
    ["quantity('50k').add(20).isLessThan(quantity('50020'))", false],
    ["quantity('50k').add(20).sub(quantity('100k')).asInteger()", -49980],
    ["quantity('50.703k').asApproximateFloat()", 50703],
    ["quantity('2M') == quantity('0.002G') && quantity('2000k') == quantity('2M') && quantity('0.002G') == quantity('2000k')", true],
    ["quantity('200M') == quantity('0.3G')", false],
    ["quantity('0').sign()", 0],
    ["quantity('5m').sign()", 1],
    ["quantity('0.1n') == quantity('1n') && quantity('-0.1n') == quantity('-1n')", true],
    ["quantity('1.5n').compareTo(quantity('2n'))", 0],
    ["quantity('16Ei').asInteger()", 9223372036854775807],
    ["quantity('16E').isInteger()", false],
  ])('%s', (source, expected) => {
    expect(evaluate(source)).toEqual(expected);
  });

  test.each([
    ["quantity('Three')", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["quantity('200K')", "unable to parse quantity's suffix"],
    ["quantity('10Mm')", "unable to parse quantity's suffix"],
    ["quantity('10Mo')", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["quantity('1.2.3')", 'unable to parse numeric part of quantity'],
    ["quantity('1e1001')", "unable to parse quantity's suffix"],
    ["quantity('9999999999999999999999999999999999999G').asInteger()", 'cannot convert value to integer'],
    ["quantity('1').compareTo(semver('1.0.0'))", "found no matching overload for 'compareTo' applied to '(kubernetes.Quantity, kubernetes.Semver)'"],
  ])('%s is an error', (source, message) => {
    expect(evaluate(source)).toEqual({ error: message });
  });
});
