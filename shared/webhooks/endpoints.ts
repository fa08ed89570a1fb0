/**
 * Webhook endpoints seen through a tenant scope (issue 6): what the REST API and GraphQL call,
 * over the core of register.ts, update.ts, remove.ts, secrets.ts, read.ts and emit.ts. A member
 * reaches only its owner's endpoints; another tenant's endpoint is a 404
 * `APP_WEBHOOK_NOT_FOUND`, exactly like one that does not exist.
 */
import { unprocessable } from '../errors/app-error.ts';
import { endpointNotFound, endpointRow, endpointTable, toEndpoint, type Endpoint, type EndpointGuard, type EndpointRow } from './endpoint-store.ts';
import { assertOwner } from './endpoint-fields.ts';
import { validateEventName } from './patterns.ts';
import { register, type RegisterOptions, type RegisteredEndpoint } from './register.ts';
import { update, type EndpointPatch } from './update.ts';
import { remove } from './remove.ts';
import { rotate } from './secrets.ts';
import { show, type EndpointDetails, type SecretInfo } from './read.ts';
import { sendToEndpoint } from './emit.ts';
import type { Delivery } from './enqueue.ts';
import type { WebhookDeps } from './deps.ts';
import { assertInScope, ownerFilter, ownerForWrite, type TenantScope } from './tenant-scope.ts';

/** The event sent by `sendTestEvent` unless another is named (like `webhooks:send`). */
export const TEST_EVENT = 'webhook.test';

export interface EndpointPageQuery {
  /** Only this owner's endpoints (null: those without owner); a member's scope fixes it. */
  owner?: string | null;
  /** true: enabled only; false: disabled only. */
  enabled?: boolean;
  /** Only endpoints that receive at least one of these event names (by their patterns). */
  events?: readonly string[];
  page: number;
  perPage: number;
}

/** AppError 422 `APP_WEBHOOK_LIST_INVALID` naming the filter. */
export const listInvalid = (field: string, reason: string, value?: unknown) =>
  unprocessable(`invalid filter ${field}: ${reason}`, { code: 'APP_WEBHOOK_LIST_INVALID', data: { field, reason, value } });

/**
 * The patterns that match event `name`: `*`, the name itself and every family above it
 * (`a.b.c` -> `a.*`, `a.b.*`), so "endpoints receiving `a.b.c`" is an array overlap in SQL
 * with exactly the semantics of `matchesEvent`.
 */
export function patternsMatching(name: string): string[] {
  const segments = name.split('.');
  const families = segments.slice(0, -1).map((_, index) => `${segments.slice(0, index + 1).join('.')}.*`);
  return ['*', name, ...families];
}

/** The guard that keeps a core write inside `scope` (checked again on the locked row). */
const scopeGuard = (scope: TenantScope, id: string): EndpointGuard => (row) => assertInScope(scope, row.owner, () => endpointNotFound(id));

/** The row of endpoint `id` when it is in `scope`; else 404 `APP_WEBHOOK_NOT_FOUND`. */
export async function endpointInScope(deps: Pick<WebhookDeps, 'config' | 'sql'>, scope: TenantScope, id: unknown): Promise<EndpointRow> {
  const row = await endpointRow(deps.sql, deps.config, id);
  assertInScope(scope, row.owner, () => endpointNotFound(id));
  return row;
}

/** One page of endpoints in creation order with the total, filtered (owner, state, events received). Never secrets. */
export async function listEndpointPage(
  deps: Pick<WebhookDeps, 'config' | 'sql'>,
  scope: TenantScope,
  query: EndpointPageQuery,
): Promise<{ records: Endpoint[]; total: number }> {
  const { sql, config } = deps;
  const owner = ownerFilter(scope, query.owner === undefined ? undefined : assertOwner(query.owner));
  const names = query.events ?? [];
  for (const name of names) {
    const reason = validateEventName(name);
    if (reason !== null) throw listInvalid('events', `event name ${JSON.stringify(name)} ${reason}`, name);
  }
  const patterns = names.flatMap(patternsMatching);
  const where = sql`
    ${owner === undefined ? sql`true` : owner === null ? sql`w.owner is null` : sql`w.owner = ${owner}`}
    and ${query.enabled === undefined ? sql`true` : query.enabled ? sql`w.disabled_at is null` : sql`w.disabled_at is not null`}
    and ${names.length === 0 ? sql`true` : sql`w.events && ${patterns}::text[]`}`;
  const [rows, [{ total }]] = await Promise.all([
    sql<EndpointRow[]>`
      select w.* from ${endpointTable(sql, config)} w where ${where}
       order by w.created_at, w.id limit ${query.perPage} offset ${(query.page - 1) * query.perPage}`,
    sql<{ total: number }[]>`select count(*)::int as total from ${endpointTable(sql, config)} w where ${where}`,
  ]);
  return { records: rows.map((row) => toEndpoint(row, deps.config)), total };
}

/** Endpoint `id` with the dates of the secrets that sign (never a secret). */
export async function showEndpoint(deps: Pick<WebhookDeps, 'config' | 'sql'>, scope: TenantScope, id: string): Promise<Endpoint & { secrets: SecretInfo[] }> {
  await endpointInScope(deps, scope, id);
  return (await show(deps, id)) as EndpointDetails & { secrets: SecretInfo[] };
}

/** `register()` for the scope's owner: a member registers for its own tenant only. */
export function registerEndpoint(deps: WebhookDeps, scope: TenantScope, input: RegisterOptions): Promise<RegisteredEndpoint> {
  const given = (input ?? {}) as RegisterOptions;
  return register(deps, { ...given, owner: ownerForWrite(scope, given.owner) as string | null | undefined });
}

/** `update()` of an endpoint in scope; a member cannot give it to another owner. */
export async function updateEndpoint(deps: WebhookDeps, scope: TenantScope, id: string, patch: EndpointPatch): Promise<Endpoint> {
  await endpointInScope(deps, scope, id);
  const given = { ...(patch ?? {}) } as EndpointPatch;
  if ('owner' in given && given.owner !== undefined) given.owner = ownerForWrite(scope, given.owner) as string | null;
  return update(deps, id, given, { guard: scopeGuard(scope, id) });
}

/** `remove()` of an endpoint in scope. */
export async function removeEndpoint(deps: WebhookDeps, scope: TenantScope, id: string): Promise<{ id: string; removed: true }> {
  await endpointInScope(deps, scope, id);
  return remove(deps, id, { guard: scopeGuard(scope, id) });
}

/** `rotate()` of an endpoint in scope: `{secret, graceEndsAt}`, the new secret shown this once. */
export async function rotateEndpointSecret(deps: WebhookDeps, scope: TenantScope, id: string, options: { grace?: number } = {}) {
  await endpointInScope(deps, scope, id);
  return rotate(deps, id, { ...options, guard: scopeGuard(scope, id) });
}

/**
 * Sends one event (default `webhook.test`, data `{}`) to endpoint `id` alone, whether or not it
 * subscribed, through the queue (`webhooks:send`). Throws what `sendToEndpoint` throws.
 */
export async function sendTestEvent(deps: WebhookDeps, scope: TenantScope, id: string, input: { type?: string; data?: unknown } = {}): Promise<Delivery> {
  await endpointInScope(deps, scope, id);
  return sendToEndpoint(deps, id, input.type ?? TEST_EVENT, input.data === undefined ? {} : input.data, { guard: scopeGuard(scope, id) });
}
