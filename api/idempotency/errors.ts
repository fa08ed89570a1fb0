import { AppError } from '../../shared/errors/app-error.ts';

/** The idempotency refusals (docs/http-api.md "Error codes"), as data; tests iterate over this table. */
export const IDEMPOTENCY_ERRORS = {
  invalid: { status: 400, code: 'APP_API_IDEMPOTENCY_KEY_INVALID', headers: undefined },
  inProgress: { status: 409, code: 'APP_API_IDEMPOTENCY_IN_PROGRESS', headers: { 'Retry-After': '1' } },
  reused: { status: 422, code: 'APP_API_IDEMPOTENCY_KEY_REUSED', headers: undefined },
} as const;

const refusal = (kind: keyof typeof IDEMPOTENCY_ERRORS, message: string) => {
  const { status, code, headers } = IDEMPOTENCY_ERRORS[kind];
  return new AppError(status, message, { code, headers: headers ? { ...headers } : undefined });
};

/** 400: the header is not 1 to 255 printable ASCII characters. */
export const invalidKey = (reason: string) => refusal('invalid', `Idempotency-Key is not valid: ${reason}`);

/** 409 with `Retry-After: 1`: the first request with this key is still running. */
export const inProgress = () =>
  refusal('inProgress', 'a request with this Idempotency-Key is still in progress; retry shortly');

/** 422: the key was used for another method, path or body. */
export const keyReused = () =>
  refusal('reused', 'this Idempotency-Key was used for a different request (method, path or body)');
