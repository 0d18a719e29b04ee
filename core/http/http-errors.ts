/**
 * Errors a handler throws to answer with a 4xx/5xx. Each renders the envelope of
 * spec/decisions.md; anything else thrown becomes a 500 without details.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  body(): unknown {
    return { success: false, message: this.message, data: [] };
  }
}

export class BadRequestError extends HttpError {
  constructor(message = 'Malformed request') {
    super(400, message);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'Unauthenticated') {
    super(401, message);
  }
}

export class ForbiddenError extends HttpError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message = 'Request body too large') {
    super(413, message);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message = 'Content-Type must be application/json') {
    super(415, message);
  }
}

export type FieldErrors = Record<string, string[]>;

/** 422 with `{message, errors: {"dotted.path": [..]}}`. */
export class ValidationError extends HttpError {
  constructor(
    readonly errors: FieldErrors,
    message = summarize(errors),
  ) {
    super(422, message);
  }

  static field(path: string, message: string): ValidationError {
    return new ValidationError({ [path]: [message] });
  }

  override body(): unknown {
    return { message: this.message, errors: this.errors };
  }
}

export class ServiceUnavailableError extends HttpError {
  constructor(message = 'Service unavailable') {
    super(503, message);
  }
}

function summarize(errors: FieldErrors): string {
  const paths = Object.keys(errors);
  if (paths.length === 0) return 'The given data was invalid.';
  const first = `${paths[0]} ${errors[paths[0]][0]}`;
  return paths.length === 1 ? first : `${first} (and ${paths.length - 1} more error${paths.length > 2 ? 's' : ''})`;
}
