import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kebabCase, pluralize, snakeCase } from '../../../../api/model-framework/data/names.ts';
import { compileShapes, ModelDeclarationError } from '../../../../api/model-framework/data/registry.ts';
import { BOOLEAN, defineModel, ObjectId, STRING } from '../../../../api/model-framework/data/types.ts';
import { buildApi } from '../../../../api/model-framework/routing/api.ts';
import { RouteTableError } from '../../../../api/model-framework/routing/table.ts';
import { routeStageStub, sqlStub } from '../../fixtures/stubs.ts';
import { Author, Post } from '../../fixtures/models.ts';

describe('model declarations', () => {
  it('defaults: collection kebab-case plural, table snake_case plural, columns snake_case', () => {
    const [shape] = compileShapes([
      defineModel({ name: 'BlogCategory', schema: { displayName: { type: STRING }, isPublic: { type: BOOLEAN } } }),
    ]);
    assert.equal(shape.collection, 'blog-categories');
    assert.equal(shape.table, 'blog_categories');
    assert.deepEqual(shape.columns, ['id', 'external_id', 'display_name', 'is_public']);
  });

  it('the fixture models compile: Post references Author twice, timestamps add two columns', () => {
    const shapes = compileShapes([Author, Post]);
    const post = shapes.find((shape) => shape.name === 'Post');
    assert.deepEqual(
      post?.references.map((field) => `${field.name}->${field.ref} (${field.column})`),
      ['author->Author (author_id)', 'reviewer->Author (reviewer_id)'],
    );
    assert.deepEqual(post?.columns.slice(-2), ['created_at', 'updated_at']);
  });

  it('every problem of the declarations is listed at once', () => {
    assert.throws(
      () =>
        compileShapes([
          {
            name: 'thing',
            schema: { id: { type: STRING }, owner: { type: ObjectId }, kind: { type: 'colour' as never } },
          },
          { name: 'Note', schema: { author: { type: ObjectId, ref: 'Nobody' }, title: { type: STRING, ref: 'Note' } } },
          { name: 'Note', schema: {} },
        ]),
      (error: unknown) => {
        assert.ok(error instanceof ModelDeclarationError);
        const text = error.message;
        for (const expected of [
          /model thing: name must be PascalCase/,
          /field id: the name is reserved/,
          /field owner: an ObjectId field needs `ref`/,
          /field kind: type must be one of/,
          /field author: ref "Nobody" names no declared model/,
          /field title: only ObjectId fields take `ref`/,
          /two models share the name "Note"/,
        ]) {
          assert.match(text, expected);
        }
        return true;
      },
    );
  });

  it('a policyScope without a policy stops the boot: it limits listings while show, update and destroy would serve every record', () => {
    const scopeOnly = defineModel({
      name: 'Memo',
      schema: { owner: { type: STRING } },
      policyScope: (principal) => ({ owner: principal?.owner ?? null }),
    });
    assert.throws(
      () => compileShapes([scopeOnly]),
      /model Memo: policyScope needs a policy \(it limits listings; the policy decides each record\)/,
    );
    assert.equal(compileShapes([{ ...scopeOnly, policy: () => true }]).length, 1);
  });

  it('naming helpers', () => {
    assert.deepEqual(['post', 'category', 'box', 'match', 'day'].map(pluralize), [
      'posts',
      'categories',
      'boxes',
      'matches',
      'days',
    ]);
    assert.equal(snakeCase('publishedAt'), 'published_at');
    assert.equal(snakeCase('HTTPRequest'), 'http_request');
    assert.equal(kebabCase('BlogPosts'), 'blog-posts');
  });
});

describe('building the API from a route table', () => {
  it('a resources route without a model or a controller stops the boot, naming the route', () => {
    assert.throws(
      () =>
        buildApi(
          { sql: sqlStub, maxPageOffset: 10_000 },
          { models: [Author], routes: { 'resources comments': {}, 'GET /ping': { controller: 'health.ping' } } },
          routeStageStub,
        ),
      (error: unknown) => {
        assert.ok(error instanceof RouteTableError);
        assert.match(
          error.message,
          /resources comments: no controller "comments" with "index" and no model for "comments"/,
        );
        assert.match(error.message, /GET \/ping: controller "health" has no action "ping"/);
        return true;
      },
    );
  });

  it('a hand-written controller serves the actions it has; the generic controller the rest', () => {
    const custom = { index: () => undefined };
    const api = buildApi(
      { sql: sqlStub, maxPageOffset: 10_000 },
      { models: [Author], routes: { 'crud authors': {} }, controllers: { authors: custom } },
      routeStageStub,
    );
    const index = api.mounted.find((mounted) => mounted.route.action === 'index');
    const show = api.mounted.find((mounted) => mounted.route.action === 'show');
    assert.equal(index?.action, custom.index);
    assert.notEqual(show?.action, undefined);
    assert.equal(show?.model?.name, 'Author');
  });

  it('a route naming an undeclared model stops the boot', () => {
    assert.throws(
      () =>
        buildApi(
          { sql: sqlStub, maxPageOffset: 10_000 },
          { models: [Author], routes: { 'crud writers': { model: 'Writer' } } },
          routeStageStub,
        ),
      /model "Writer" is not declared/,
    );
  });
});
