import { describe, expect, it } from 'vitest';
import { destinationAllows } from './destinations';

const allows = (url: string, destinations: string[]) => destinationAllows(new URL(url), destinations);

describe('Secret Key Destinations', () => {
  it('allow any URL when none are configured', () => {
    expect(allows('https://anything.example/x', [])).toBe(true);
  });

  it('allow a URL that the normalized destination is a prefix of', () => {
    expect(allows('https://api.example.com/v1/charges?x=1', ['https://api.example.com/v1/'])).toBe(true);
    expect(allows('https://api.example.com/anything', ['https://API.example.com'])).toBe(true);
    expect(allows('https://api.example.com:443/v1/x', ['https://api.example.com/v1'])).toBe(true);
  });

  it('refuse another origin even when the text starts the same', () => {
    expect(allows('https://api.example.com.evil.net/v1', ['https://api.example.com'])).toBe(false);
    expect(allows('https://api.example.com@evil.net/', ['https://api.example.com'])).toBe(false);
    expect(allows('http://api.example.com/v1', ['https://api.example.com/v1'])).toBe(false);
    expect(allows('https://api.example.com:8443/v1', ['https://api.example.com/v1'])).toBe(false);
  });

  it('refuse a path outside the destination', () => {
    expect(allows('https://api.example.com/v2/x', ['https://api.example.com/v1/'])).toBe(false);
  });

  it('ignore a destination that is not a URL', () => {
    expect(allows('https://api.example.com/', ['not a url'])).toBe(false);
  });
});
