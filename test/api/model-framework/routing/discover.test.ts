import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { discoverApi } from '../../../../api/model-framework/routing/discover.ts';
import { getJson, startApp } from '../../fixtures/app.ts';

describe('discovery of models, controllers and routes at boot', async () => {
  const root = await mkdtemp(join(tmpdir(), 'app discover '));
  after(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'models'));
  await mkdir(join(root, 'controllers'));
  await writeFile(
    join(root, 'models', 'author.ts'),
    `export default { name: 'Author', table: 'fixture_authors', schema: { name: { type: 'string', required: true }, email: { type: 'string' }, active: { type: 'boolean', default: true } }, options: { timestamps: true } };\n`,
  );
  await writeFile(
    join(root, 'models', 'post.ts'),
    `export default { name: 'Post', table: 'fixture_posts', schema: { title: { type: 'string', required: true }, author: { type: 'objectId', ref: 'Author', column: 'author_id' } } };\n`,
  );
  await writeFile(join(root, 'models', '_draft.ts'), `throw new Error('files starting with _ are skipped');\n`);
  await writeFile(join(root, 'models', 'README.md'), `not a model\n`);
  await writeFile(
    join(root, 'controllers', 'status.ts'),
    `export default { show(ctx) { ctx.body = { status: 'fine' }; } };\n`,
  );
  await writeFile(
    join(root, 'routes.ts'),
    `export default { 'crud authors': { scope: 'api/v1' }, 'GET /status': { controller: 'status.show' } };\n`,
  );
  const locations = {
    models: pathToFileURL(join(root, 'models') + '/'),
    controllers: pathToFileURL(join(root, 'controllers') + '/'),
    routes: pathToFileURL(join(root, 'routes.ts')),
  };

  it('reads every model file (default export), controllers by file name, and the route table', async () => {
    const found = await discoverApi(locations);
    assert.deepEqual(
      found.models?.map((model) => model.name),
      ['Author', 'Post'],
    );
    assert.deepEqual(Object.keys(found.controllers ?? {}), ['status']);
    assert.deepEqual(Object.keys(found.routes ?? {}), ['crud authors', 'GET /status']);
  });

  it('a folder that does not exist and a missing routes file give an empty application', async () => {
    const nowhere = pathToFileURL(join(root, 'nowhere') + '/');
    const found = await discoverApi({ models: nowhere, controllers: nowhere, routes: new URL('routes.ts', nowhere) });
    assert.deepEqual(found, { models: [], controllers: {}, routes: {} });
  });

  it('what was discovered is served', async () => {
    const app = await startApp(await discoverApi(locations));
    assert.equal((await getJson(`${app.base}/status`)).body.status, 'fine');
    assert.equal((await getJson(`${app.api}/authors`)).status, 200);
  });

  it("the service's own api/ ships no model declarations (models are the deployer's)", async () => {
    const own = await discoverApi();
    assert.deepEqual(own.models, []);
  });
});
