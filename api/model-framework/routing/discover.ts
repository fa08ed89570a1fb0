import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ModelDeclaration } from '../data/types.ts';
import type { ApiDefinition } from './api.ts';
import type { Controller } from './controller.ts';
import type { RouteTable } from './table.ts';

/** Where the application's declarations live (default: this package's `api/`). */
export interface ApiLocations {
  models: URL;
  controllers: URL;
  routes: URL;
}

export const DEFAULT_LOCATIONS: ApiLocations = {
  models: new URL('../models/', import.meta.url),
  controllers: new URL('../controllers/', import.meta.url),
  routes: new URL('../routes.ts', import.meta.url),
};

/** `.ts`/`.js` modules of a folder, by name, sorted; none when the folder does not exist. Names starting with `_` or `.` are skipped. */
async function modulesIn(dir: URL): Promise<Array<{ name: string; url: URL }>> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names
    .filter((name) => /^[^_.].*\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts'))
    .sort()
    .map((name) => ({ name: name.replace(/\.(ts|js|mjs)$/, ''), url: new URL(encodeURIComponent(name), dir) }));
}

const exported = (module: Record<string, unknown>, name: string): unknown => module.default ?? module[name];

/**
 * Discovers the application at boot: every model declaration in `api/model-framework/models/` (default export),
 * every controller in `api/model-framework/controllers/` (default export, named after its file) and the route
 * table of `api/model-framework/routes.ts` (default export).
 */
export async function discoverApi(locations: ApiLocations = DEFAULT_LOCATIONS): Promise<ApiDefinition> {
  const models: ModelDeclaration[] = [];
  for (const file of await modulesIn(locations.models)) {
    const declaration = exported(await import(file.url.href), 'model');
    if (!declaration)
      throw new Error(`${fileURLToPath(file.url)}: a model file must export its declaration as default`);
    models.push(declaration as ModelDeclaration);
  }
  const controllers: Record<string, Controller> = {};
  for (const file of await modulesIn(locations.controllers)) {
    const controller = exported(await import(file.url.href), 'controller');
    if (!controller)
      throw new Error(`${fileURLToPath(file.url)}: a controller file must export its actions as default`);
    controllers[file.name] = controller as Controller;
  }
  const routesModule = (await import(locations.routes.href).catch((error: NodeJS.ErrnoException & { url?: string }) => {
    // no routes file: no routes; a routes file importing something missing is a real error
    if (error.code === 'ERR_MODULE_NOT_FOUND' && (error.url === undefined || error.url === locations.routes.href))
      return {};
    throw error;
  })) as Record<string, unknown>;
  const routes = (exported(routesModule, 'routes') ?? {}) as RouteTable;
  return { models, controllers, routes };
}
