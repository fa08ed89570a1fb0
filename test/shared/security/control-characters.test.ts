import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasControlBesidesLineBreaks, hasControlCharacter } from '../../../shared/security/control-characters.ts';

// CSI (starts an escape sequence), NEL (a line break to some terminals), the first and last of C1
const C1 = ['\u009b', '\u0085', '\u0080', '\u009f'];

describe('control characters in typed text', () => {
  it('one-line text: C0, DEL and C1 are control characters', () => {
    for (const character of ['\u0000', '\t', '\n', '\r', '\u001b', '\u007f', ...C1])
      assert.equal(hasControlCharacter(`a${character}b`), true, JSON.stringify(character));
  });

  it('text over lines: tab, LF and CR are allowed, every other C0, DEL and C1 are not', () => {
    assert.equal(hasControlBesidesLineBreaks('a\tb\nc\r\nd'), false);
    for (const character of ['\u0000', '\u000b', '\u001b', '\u007f', ...C1])
      assert.equal(hasControlBesidesLineBreaks(`a${character}b`), true, JSON.stringify(character));
  });

  it('the characters on either side of C1 are text: U+007E, U+00A0 (no-break space), U+00E9, U+FFFD', () => {
    for (const text of ['~', '\u00a0', '\u00e9', '\ufffd', 'ordinary words'])
      assert.equal(hasControlCharacter(text) || hasControlBesidesLineBreaks(text), false, JSON.stringify(text));
  });
});
