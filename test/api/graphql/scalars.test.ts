import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, validate } from 'graphql';
import { DateTime } from '../../../api/graphql/scalars.ts';

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: { at: { type: GraphQLString, args: { since: { type: DateTime } } } },
  }),
});

describe('DateTime', () => {
  it('a literal that is not ISO 8601 is refused with the place of the literal in the query', () => {
    const errors = validate(schema, parse('{\n  at(since: "yesterday")\n}'));
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /ISO 8601.*"yesterday"/);
    assert.deepEqual(errors[0].locations, [{ line: 2, column: 13 }]);
  });

  it('a literal that is not a string is refused at its place too', () => {
    const errors = validate(schema, parse('{ at(since: 12) }'));
    assert.deepEqual(errors[0].locations, [{ line: 1, column: 13 }]);
  });

  it('ISO 8601 text is a Date; a variable that is not one is refused', () => {
    assert.equal((DateTime.parseValue('2026-01-31T12:00:00Z') as Date).toISOString(), '2026-01-31T12:00:00.000Z');
    assert.throws(() => DateTime.parseValue('2026-13-45'), /ISO 8601/);
  });
});
