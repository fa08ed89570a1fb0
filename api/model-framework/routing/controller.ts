import type { Context } from 'koa';

/** A controller action: the thin Koa layer between a route and the model or core functions. */
export type Action = (ctx: Context & { params: Record<string, string> }) => unknown;

/**
 * A hand-written controller (`api/model-framework/controllers/<name>.ts`, default export): action name ->
 * action. For resources/crud routes the actions are index, new, create, show, edit, update,
 * destroy; those it leaves out are served by the generic controller of the route's model.
 */
export type Controller = Readonly<Record<string, Action>>;

/** Identity helper that checks a controller's shape (`export default defineController({...})`). */
export function defineController<const T extends Controller>(controller: T): T {
  return controller;
}
