import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSchema } from 'graphql';
import { createPreparer, prepare, type OperationRules } from '../../../api/graphql/operation.ts';

const SCHEMA = buildSchema(`
  type Item { name: String! }
  type Query { items(first: Int): [Item!]! item: Item }
`);
const LIMITS = { maxBytes: 10_000, maxTokens: 500, maxDepth: 5, maxAliases: 5, maxCost: 12 };
const RULES: OperationRules = { limits: LIMITS, introspection: false, defaultListSize: 25 };

const codes = (prepared: ReturnType<typeof prepare>) =>
  prepared.ok ? [] : prepared.errors.map((error) => error.extensions?.code ?? error.message);

describe('createPreparer: documents that passed every rule are kept per query text', () => {
  it('the same text is parsed and validated once: later requests get the same document', () => {
    const prepareKept = createPreparer(SCHEMA, RULES);
    const first = prepareKept({ query: '{ item { name } }' });
    const second = prepareKept({ query: '{ item { name } }' });
    assert.ok(first.ok && second.ok);
    assert.equal(second.document, first.document);
    const fresh = prepare(SCHEMA, RULES, { query: '{ item { name } }' });
    assert.ok(fresh.ok);
    assert.deepEqual(first.document, fresh.document, 'the kept document is what prepare makes');
  });

  it('a different text is prepared on its own; at most maxEntries texts are kept', () => {
    const prepareKept = createPreparer(SCHEMA, RULES, { maxEntries: 1, maxCharacters: 1000 });
    const a = prepareKept({ query: '{ item { name } }' });
    const b = prepareKept({ query: '{ a: item { name } }' });
    assert.ok(a.ok && b.ok);
    assert.notEqual(b.document, a.document);
    const again = prepareKept({ query: '{ item { name } }' }); // dropped by b: made anew
    assert.ok(again.ok);
    assert.notEqual(again.document, a.document);
    assert.deepEqual(again.document, a.document);
  });

  it("the cost of a kept document is measured again with each request's variables (list sizes given as variables)", () => {
    const prepareKept = createPreparer(SCHEMA, RULES);
    const query = 'query($n: Int) { items(first: $n) { name } }';
    assert.ok(prepareKept({ query, variables: { n: 11 } }).ok); // 1 + 11 × 1 = 12
    const over = prepareKept({ query, variables: { n: 12 } });
    assert.deepEqual(codes(over), ['APP_GRAPHQL_MAX_COST']);
    assert.deepEqual(
      over,
      prepare(SCHEMA, RULES, { query, variables: { n: 12 } }),
      'refused exactly as a first preparation refuses it',
    );
    assert.ok(prepareKept({ query, variables: { n: 3 } }).ok);
  });

  it('refused documents are not kept: each request gets the same refusal', () => {
    const prepareKept = createPreparer(SCHEMA, RULES);
    for (const query of ['{ nothing }', '{ items { name } }', '{ item { name }']) {
      const first = prepareKept({ query });
      const second = prepareKept({ query });
      assert.equal(first.ok, false, query);
      assert.deepEqual(codes(second), codes(first), query);
    }
  });

  it('in process (no limits) the kept document is served whatever the variables', () => {
    const prepareKept = createPreparer(SCHEMA, { introspection: true, defaultListSize: 25 });
    const query = 'query($n: Int) { items(first: $n) { name } }';
    const first = prepareKept({ query, variables: { n: 1000 } });
    const second = prepareKept({ query, variables: { n: 100_000 } });
    assert.ok(first.ok && second.ok);
    assert.equal(second.document, first.document);
  });
});
