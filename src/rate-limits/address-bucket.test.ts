import { describe, expect, it } from 'vitest';
import { addressBucket } from './address-bucket';

describe('the flood-control bucket of an address (CF-Connecting-IP)', () => {
  it('an IPv4 address is its own bucket, written plainly or IPv4-mapped', () => {
    expect(addressBucket('192.0.2.1')).toBe('192.0.2.1');
    expect(addressBucket('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressBucket(' 192.0.2.1 ')).toBe('192.0.2.1');
  });

  it('an IPv6 address counts as its /64, however it is written', () => {
    const bucket = '2001:db8:1:2::/64';
    for (const address of ['2001:db8:1:2::1', '2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2:0:0:0:9', '2001:db8:1:2::1%eth0']) {
      expect(addressBucket(address), address).toBe(bucket);
    }
    expect(addressBucket('2001:db8:1:3::1')).not.toBe(bucket);
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  });

  it('without the header every caller shares one bucket; text that is no address is a bucket of its own', () => {
    expect(addressBucket(null)).toBe('local');
    expect(addressBucket('')).toBe('local');
    expect(addressBucket('not-an-address')).toBe('other:not-an-address');
    expect(addressBucket('1:2:3:4:5:6:7:8:9')).toBe('other:1:2:3:4:5:6:7:8:9');
  });
});
