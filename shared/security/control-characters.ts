/**
 * The control characters typed text may not hold. A terminal acts on them rather than showing
 * them: C0 (U+0000 to U+001F, ESC among them), DEL (U+007F) and C1 (U+0080 to U+009F, where
 * U+009B, CSI, alone starts an escape sequence). Text a tenant types (an endpoint's description,
 * a token's name, an owner) is printed by `app` and shown by the console, so every field's check
 * refuses them through these two rules, and the faces that print stored text escape them anyway.
 */

/** Any control character: for one-line text (names, owners). */
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A control character other than tab, LF and CR: for text that may run over lines (descriptions, reasons). */
const CONTROL_BESIDES_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Whether one-line `text` holds a control character (C0, DEL or C1). */
export const hasControlCharacter = (text: string): boolean => ANY_CONTROL.test(text);

/** Whether `text` holds a control character other than tab, LF and CR (C0, DEL or C1). */
export const hasControlBesidesLineBreaks = (text: string): boolean => CONTROL_BESIDES_LINE_BREAKS.test(text);
