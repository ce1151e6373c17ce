import { compareQuantities, parseQuantity, ZERO_QUANTITY, type Quantity } from './quantity';

const q = (text: unknown): Quantity => {
  const parsed = parseQuantity(text);
  if (!parsed) throw new Error(`not a quantity: ${String(text)}`);
  return parsed;
};

describe('parseQuantity', () => {
  test.each(['1Gi', '1.5Gi', '500m', '2e3', '1E-3', '.5', '5.', '+1k', '-1', '0', 10])('accepts %p', (text) => {
    expect(parseQuantity(text)).not.toBeNull();
  });

  test.each(['', 'Gi', '1GB', '1 Gi', '1..2', 'abc', null, {}])('refuses %p', (text) => {
    expect(parseQuantity(text)).toBeNull();
  });
});

describe('compareQuantities', () => {
  test.each([
    ['1Gi', '1024Mi', 0],
    ['1Gi', '1G', 1],
    ['1.5Gi', '1536Mi', 0],
    ['500m', '0.5', 0],
    ['2e3', '2k', 0],
    ['1Ki', '1000', 1],
    ['10Gi', '20Gi', -1],
    [3, '3000m', 0],
  ])('%p vs %p is %p', (a, b, expected) => {
    expect(compareQuantities(q(a), q(b))).toBe(expected);
  });

  test('zero and negatives', () => {
    expect(compareQuantities(q('0Gi'), ZERO_QUANTITY)).toBe(0);
    expect(compareQuantities(q('-1m'), ZERO_QUANTITY)).toBe(-1);
  });
});
