import { badRequest } from '../../../shared/errors/app-error.ts';

/**
 * `ctx.permit(...names)` (Express-style `req.permit`): only the named fields of a request body, so
 * a client cannot set fields the action did not name (`externalId`, an owner…). A request without
 * a body gives an empty object. A body that is not an object of fields (a JSON array; the body
 * parsers refuse the other JSON values) is 400 `APP_BODY_INVALID`: read as no fields, it would
 * make a create report its required fields missing and an update change nothing while answering
 * 200.
 */
export function permit(body: unknown, names: readonly string[]): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    const given = Array.isArray(body) ? 'an array' : typeof body;
    throw badRequest(`the request body must be a JSON object of fields, not ${given}`, {
      code: 'APP_BODY_INVALID',
      data: { reason: `the body is ${given}; send an object of fields` },
    });
  }
  const source = body as Record<string, unknown>;
  const permitted: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(source, name)) permitted[name] = source[name];
  return permitted;
}
