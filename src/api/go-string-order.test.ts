import { compareGoStrings } from './go-string-order';

describe('compareGoStrings', () => {
  it('orders by UTF-8 bytes as Go does: upper case before lower, "-" before "_", a prefix first', () => {
    expect(['app', 'Tier', 'a_b', 'a-b', 'a', 'ab', 'B'].sort(compareGoStrings)).toEqual(['B', 'Tier', 'a', 'a-b', 'a_b', 'ab', 'app']);
  });

  it('puts a character above U+FFFF after one in U+E000-U+FFFF, as their UTF-8 bytes are', () => {
    const high = '\u{1F600}';
    const private_ = '\uE000';
    expect([high, private_].sort(compareGoStrings)).toEqual([private_, high]);
    expect(Buffer.compare(Buffer.from(private_), Buffer.from(high))).toBe(-1);
  });

  it('is zero only for equal strings', () => {
    expect(compareGoStrings('x', 'x')).toBe(0);
    expect(Math.sign(compareGoStrings('x', 'y'))).toBe(-1);
    expect(Math.sign(compareGoStrings('y', 'x'))).toBe(1);
  });
});
