import { addAmounts, amountText, countAmount, listText, parseAmount, resourceListOf, zeroAmount, type Amount } from './amounts';

const amount = (text: string): Amount => parseAmount(text)!;

describe('amountText prints canonical quantities as resource.Quantity.String()', () => {
  test.each([
    ['0.1', '100m'],
    ['1.5', '1500m'],
    ['2000m', '2'],
    ['1500000', '1500k'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1000Ki', '1000Ki'],
    ['1.5Gi', '1536Mi'],
    ['1000', '1k'],
    ['100', '100'],
    ['0.5Ki', '512'],
    ['1e3', '1e3'],
    ['0', '0'],
    ['1n', '1n'],
    ['0.1n', '1n'],
  ])('%s → %s', (text, canonical) => {
    expect(amountText(amount(text))).toBe(canonical);
  });
});

test('a sum keeps the first operand’s format unless it is zero, as Quantity.Add', () => {
  expect(amountText(addAmounts(amount('512Mi'), amount('512Mi')))).toBe('1Gi');
  expect(amountText(addAmounts(amount('1G'), amount('1Gi')))).toBe('2073741824');
  expect(amountText(addAmounts(zeroAmount(), amount('1Gi')))).toBe('1Gi');
  expect(amountText(addAmounts(amount('100m'), amount('900m')))).toBe('1');
  expect(amountText(addAmounts(countAmount(2), countAmount(1)))).toBe('3');
});

test('listText sorts names and prints name=value pairs joined by commas', () => {
  expect(listText(resourceListOf({ pods: '2', 'limits.cpu': '0.5', bogus: 'x' }))).toBe('limits.cpu=500m,pods=2');
});
