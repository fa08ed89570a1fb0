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

  it('writes bidirectional overrides and isolates, line separators and invisible characters as \\uNNNN', () => {
    assert.equal(
      terminalText('https://a.example/\u202egpj.exe\u202c \u2066x\u2069\u2028\u200b\u2060\ufeff'),
      'https://a.example/\\u202egpj.exe\\u202c \\u2066x\\u2069\\u2028\\u200b\\u2060\\ufeff',
    );
  });

  it('keeps tab, line feed, right-to-left marks, joiners and every other character as they are', () => {
    const text = 'id:\tep_1\nsociété ~ \u00a0 \ufffd 😀 שלום\u200f عربي\u061c 👨\u200d👩\u200d👧 می\u200cخواهم';
    assert.equal(terminalText(text), text);
  });
});
