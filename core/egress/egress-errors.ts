/**
 * What an outbound call can fail with. Callers branch on the class (a webhook
 * delivery retries later on a timeout, but not on a refusal), so every failure of
 * `egress.request` is one of these. Messages name the host or address, never the
 * path, query or headers, which may carry secrets.
 */
export class EgressError extends Error {
  override readonly name: string = 'EgressError';
}

/** The target is not allowed: a scheme other than http(s), or an address the policy refuses. */
export class EgressRefusedError extends EgressError {
  override readonly name = 'EgressRefusedError';
  constructor(readonly reason: string) {
    super(`outbound call refused: ${reason}`);
  }
}

export class EgressTimeoutError extends EgressError {
  override readonly name = 'EgressTimeoutError';
  constructor(
    /** `connect`: no connection within the connect timeout; `total`: the whole call ran out of time; `idle`: a streamed body went quiet for too long. */
    readonly phase: 'connect' | 'total' | 'idle',
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(
      phase === 'connect'
        ? `could not connect within ${timeoutMs} ms`
        : phase === 'idle'
          ? `the streamed answer sent nothing for ${timeoutMs} ms`
          : `outbound call did not complete within ${timeoutMs} ms`,
      options,
    );
  }
}

export class EgressResponseTooLargeError extends EgressError {
  override readonly name = 'EgressResponseTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`response body larger than ${maxBytes} bytes`);
  }
}

export class EgressTooManyRedirectsError extends EgressError {
  override readonly name = 'EgressTooManyRedirectsError';
  constructor(readonly maxRedirects: number) {
    super(`more than ${maxRedirects} redirects`);
  }
}

/** The connection failed or broke (refused, reset, DNS failure, malformed response). */
export class EgressNetworkError extends EgressError {
  override readonly name = 'EgressNetworkError';
  constructor(
    message: string,
    /** The system or undici error code, e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`. */
    readonly code: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
