import { describe, expect, it } from 'vitest';
import { goQuote } from './go-quote.ts';

describe('goQuote (Go %q)', () => {
  it('quotes as strconv.Quote does', () => {
    expect(goQuote('back-off 10s restarting failed container=app pod=x_default(u)')).toBe(
      '"back-off 10s restarting failed container=app pod=x_default(u)"',
    );
    expect(goQuote('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
    expect(goQuote('a\nb\tc\r\x07\x00\x1b\x7f')).toBe('"a\\nb\\tc\\r\\a\\x00\\x1b\\x7f"');
    expect(goQuote('café ✓ 日本')).toBe('"café ✓ 日本"');
    expect(goQuote('\u00a0\u2028\u0085')).toBe('"\\u00a0\\u2028\\u0085"');
    expect(goQuote('\u{e0001}')).toBe('"\\U000e0001"');
    expect(goQuote('')).toBe('""');
  });
});
