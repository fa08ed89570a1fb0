/**
 * `ctx.permit(...names)` (Express-style `req.permit`): only the named fields of a request body, so
 * a client cannot set fields the action did not name (`externalId`, an owner…). A body that is not
 * a JSON object or form gives an empty object.
 */
export function permit(body: unknown, names: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const source = body as Record<string, unknown>;
  const permitted: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(source, name)) permitted[name] = source[name];
  return permitted;
}
