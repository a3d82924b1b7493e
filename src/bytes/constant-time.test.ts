import { afterEach, describe, expect, it, vi } from 'vitest';
import { constantTimeEqual, constantTimeEqualText } from './constant-time';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('constant-time compare', () => {
  it('is true only for equal bytes of equal length', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([]), new Uint8Array([]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([9, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2, 9]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });

  it('compares every byte with crypto.subtle.timingSafeEqual even when the first byte already differs', () => {
    const safeEqual = vi.spyOn(crypto.subtle, 'timingSafeEqual');
    const a = new Uint8Array(32).fill(1);
    const b = new Uint8Array(32).fill(2);
    expect(constantTimeEqual(a, b)).toBe(false);
    expect(safeEqual.mock.calls).toEqual([[a, b]]);
  });

  it('on different lengths answers false without throwing, after a comparison as long as the first operand', () => {
    const safeEqual = vi.spyOn(crypto.subtle, 'timingSafeEqual');
    const a = new Uint8Array(32).fill(1);
    expect(constantTimeEqual(a, new Uint8Array(31).fill(1))).toBe(false);
    expect(safeEqual.mock.calls).toEqual([[a, a]]);
  });

  it('of text is true only for identical strings, whatever their lengths', () => {
    expect(constantTimeEqualText('token', 'token')).toBe(true);
    expect(constantTimeEqualText('', '')).toBe(true);
    expect(constantTimeEqualText('token', 'tokeN')).toBe(false);
    expect(constantTimeEqualText('token', 'token ')).toBe(false);
    expect(constantTimeEqualText('token', '')).toBe(false);
    expect(constantTimeEqualText('é', 'e\u0301')).toBe(false);
  });
});
