/**
 * A web process on port 0 over a fresh test database, shut down when the file's tests end.
 */
import { after } from 'node:test';
import { createWebServer, type WebDeps, type WebServer } from '../../api/server.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

const servers: WebServer[] = [];
after(async () => {
  for (const web of servers.splice(0).reverse()) await web.shutdown('test');
});

/** Starts one (`flags` laid over the test config; `deps` adds a logger or metrics of the test's own). */
export async function serveWeb(
  flags: Record<string, unknown> = {},
  deps: Partial<WebDeps> = {},
): Promise<{ web: WebServer; base: string; db: TestDatabase }> {
  const db = await createTestDatabase();
  const web = createWebServer({ config: db.configWith(flags), log: db.log, ...deps });
  servers.push(web);
  const base = `http://127.0.0.1:${(await web.start(0)).port}`;
  return { web, base, db };
}
