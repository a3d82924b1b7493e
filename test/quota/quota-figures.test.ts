import { describe, expect, it } from 'vitest';
import { STORAGE_QUOTA_BYTES } from '../../src/limits';
import { storageQuotaOf } from '../../src/platform/storage-quota';

describe('storage quota by plan', () => {
  it("each plan has its documented figure; the operator's figure replaces it; an unknown plan gets the free one", () => {
    expect(STORAGE_QUOTA_BYTES).toEqual({ free: 1_000_000_000, standard: 100_000_000_000, premium: 1_000_000_000_000 });
    expect(storageQuotaOf('standard', null)).toBe(100_000_000_000);
    expect(storageQuotaOf('premium', 5)).toBe(5);
    expect(storageQuotaOf('free', 0)).toBe(0);
    expect(storageQuotaOf('gold', null)).toBe(1_000_000_000);
  });
});
