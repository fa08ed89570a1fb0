import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { terminalText } from '../../../cli/support/text-forms.ts';

describe('terminalText', () => {
  it('writes C0 (ESC, CR, NUL), DEL and C1 (CSI U+009B, NEL U+0085) as \\xNN', () => {
    assert.equal(
      terminalText('a\u001b[2Jb\u009b31mc\u0085d\u007fe\rf\u0000'),
      'a\\x1b[2Jb\\x9b31mc\\x85d\\x7fe\\x0df\\x00',
    );
  });

  it('keeps tab, line feed and every other character as they are', () => {
    const text = 'id:\tep_1\nsociété ~ \u00a0 \ufffd 😀';
    assert.equal(terminalText(text), text);
  });
});
