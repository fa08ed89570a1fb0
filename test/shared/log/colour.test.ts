import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { colourWanted } from '../../../shared/log/logger.ts';

describe('readable log lines are coloured only on a terminal, and never with NO_COLOR', () => {
  it('colours a terminal, not a pipe or a file', () => {
    assert.equal(colourWanted({ isTTY: true }, {}), true);
    assert.equal(colourWanted({}, {}), false);
    assert.equal(colourWanted({ isTTY: false }, {}), false);
  });

  it('NO_COLOR set to anything but the empty text turns colours off, on a terminal too (no-color.org)', () => {
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: '1' }), false);
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: 'false' }), false);
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: '' }), true);
  });
});
