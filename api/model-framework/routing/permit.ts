import { badRequest, unprocessable } from '../../../shared/errors/app-error.ts';

/**
 * The fields of a request body as an object: a request without a body gives an empty object. A
 * body that is not an object of fields (a JSON array; the body parsers refuse the other JSON
 * values) is 400 `APP_BODY_INVALID`: read as no fields, it would make a create report its
 * required fields missing and an update change nothing while answering 200.
 */
export function bodyFields(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    const given = Array.isArray(body) ? 'an array' : typeof body;
    throw badRequest(`the request body must be a JSON object of fields, not ${given}`, {
      code: 'APP_BODY_INVALID',
      data: { reason: `the body is ${given}; send an object of fields` },
    });
  }
  return body as Record<string, unknown>;
}

/**
 * `ctx.permit(...names)` (Express-style `req.permit`): only the named fields of a request body, so
 * a client cannot set fields the action did not name (`externalId`, an owner…); the others are
 * left out. A body that is not an object of fields is refused (`bodyFields`).
 */
export function permit(body: unknown, names: readonly string[]): Record<string, unknown> {
  const source = bodyFields(body);
  const permitted: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(source, name)) permitted[name] = source[name];
  return permitted;
}

/**
 * The named fields of a request body, refusing any other with 422 `APP_BODY_FIELD_UNKNOWN`
 * (`data.field` the first as written, `data.fields` all of them, `data.accepted` the names): for
 * the product's own APIs, where a misspelt field left out would act on a request the client did
 * not send (an emit without its `data`, a token that never expires, an endpoint enabled that was
 * meant to start disabled).
 */
export function permitOnly(body: unknown, names: readonly string[]): Record<string, unknown> {
  const source = bodyFields(body);
  const unknown = Object.keys(source).filter((key) => !names.includes(key));
  if (unknown.length > 0) {
    const accepted = names.length > 0 ? `this request accepts ${names.join(', ')}` : 'this request takes no field';
    throw unprocessable(
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => JSON.stringify(key)).join(', ')} in the request body; ${accepted}`,
      { code: 'APP_BODY_FIELD_UNKNOWN', data: { field: unknown[0], fields: unknown, accepted: [...names] } },
    );
  }
  return permit(source, names);
}
