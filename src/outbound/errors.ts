/** Why an outbound call was not made or did not complete. The caller maps it to its own error code. */
export type OutboundFailureReason =
  /** The URL is not an http(s) URL with a hostname, or carries credentials. Nothing was sent. */
  | 'invalid_url'
  /** The host is loopback, private, link-local, reserved, or a local-only name. Nothing was sent. */
  | 'private_destination'
  /**
   * The Secret Key's Destinations refuse the URL: detail.refusal says why (a DestinationRefusal of
   * ./destinations: not_listed, userinfo, space, backslash, dot_segment, placeholder_before_path). Nothing was sent.
   */
  | 'destination_not_allowed'
  /** A header name or value cannot travel in HTTP (line break, NUL, character outside Latin-1). */
  | 'invalid_header'
  /** The call, or the secret search of its response, ran past its time limit. */
  | 'timeout'
  /** The response body is larger than MAX_RESPONSE_BYTES. */
  | 'too_large'
  /** No response: connection refused, DNS failure, TLS failure and the like. */
  | 'unreachable';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailureReason,
    message: string,
    /** Extra detail safe to show the caller (never a secret value). */
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}
