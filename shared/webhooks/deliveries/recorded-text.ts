/**
 * Text a receiver or a broker wrote (an answer's excerpt, the words of an error such as the
 * `Location` of a redirect) as a delivery's records keep it. Every face shows these records,
 * `app jobs:show` on an operator's terminal too, where a control character is a command: an
 * escape sequence in an answer would set the terminal's title, clear it or rewrite the lines
 * above it. So each control character (C0, DEL, C1) becomes U+FFFD, as U+0000 must anyway
 * (PostgreSQL text cannot hold it), but for the tabs and line breaks of an ordinary answer: tab,
 * LF, and a CR that ends a line (CR LF); a CR alone returns to the line's start, and is replaced.
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/g;

/** `text` with U+FFFD for each control character but tab, LF and the CR of a CR LF. */
export function recordedText(text: string): string;
export function recordedText(text: string | null | undefined): string | null;
export function recordedText(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : text.replace(CONTROL, '\uFFFD');
}
