import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '#shared/http/error-body';

export interface HttpErrorOptions {
  readonly details?: readonly ErrorDetail[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/** An error meant for the client, sent as it is; its status comes from its code, so the two cannot disagree. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: number;
  readonly details: readonly ErrorDetail[] | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}
