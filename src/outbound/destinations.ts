/** The Destinations of a Secret Key: the URLs a call that uses the key may go to. */

function parseDestination(text: string): URL | undefined {
  try {
    const url = new URL(text);
    url.hash = '';
    return url;
  } catch {
    return undefined;
  }
}

/**
 * True when the URL may be called under these Destinations: none configured allows any URL; otherwise
 * some destination must have the same origin (scheme, host and port, so https://api.example.com never
 * admits https://api.example.com.evil.net) and its normalized URL must be a prefix of the call's URL.
 */
export function destinationAllows(url: URL, destinations: readonly string[]): boolean {
  if (destinations.length === 0) return true;
  const href = new URL(url.href);
  href.hash = '';
  return destinations.some((text) => {
    const destination = parseDestination(text);
    return destination !== undefined && destination.origin === href.origin && href.href.startsWith(destination.href);
  });
}
