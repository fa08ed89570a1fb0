/**
 * The one error type of the service. Everything the service refuses on purpose is an AppError:
 * it carries an HTTP `status`, a stable `code` (`APP_*`, listed in docs/http-api.md), whether its
 * message may be shown to a client (`expose`, true below 500) and optional `data` for the
 * problem+json body. The web process renders it in one place (api/middleware/errors.ts); the
 * CLI prints its message on one line and exits with the code of its kind (cli/failure.ts).
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly expose: boolean;
  readonly data: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    message: string,
    options: {
      code?: string;
      data?: Record<string, unknown>;
      headers?: Record<string, string>;
      expose?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = options.code;
    this.data = options.data;
    this.headers = options.headers;
    this.expose = options.expose ?? status < 500;
  }
}

type Options = ConstructorParameters<typeof AppError>[2];

/** Small factories named after the status they answer (`boom`-style helpers). */
export const badRequest = (message: string, options?: Options) => new AppError(400, message, options);
export const unauthorized = (message: string, options?: Options) => new AppError(401, message, options);
export const forbidden = (message: string, options?: Options) => new AppError(403, message, options);
export const notFound = (message: string, options?: Options) => new AppError(404, message, options);
export const notAcceptable = (message: string, options?: Options) => new AppError(406, message, options);
export const conflict = (message: string, options?: Options) => new AppError(409, message, options);
export const payloadTooLarge = (message: string, options?: Options) => new AppError(413, message, options);
export const unprocessable = (message: string, options?: Options) => new AppError(422, message, options);
export const tooManyRequests = (message: string, options?: Options) => new AppError(429, message, options);
export const internal = (message: string, options?: Options) => new AppError(500, message, options);
export const unavailable = (message: string, options?: Options) => new AppError(503, message, options);

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;
