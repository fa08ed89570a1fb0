/**
 * A secret read from standard input (`users:create --password-stdin`): one line, its end of line
 * dropped. What a script pipes in by mistake is refused in one line, a usage error (exit 2),
 * before the core sees it: nothing (an unset variable, `printf '%s' "$PW"`; a closed stdin),
 * more than one line, or more than MAX_STDIN_BYTES, read no further (a file or a device piped in
 * whole, which was read to its end and held in memory).
 */
import type { Readable } from 'node:stream';
import { UsageError } from '../failure.ts';

export const MAX_STDIN_BYTES = 4096;

export async function stdinLine(stdin: Readable, option: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // leaving the loop early (a throw) destroys the stream: the rest is never read
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_STDIN_BYTES)
      throw new UsageError(`${option}: standard input holds more than ${MAX_STDIN_BYTES} bytes; it takes one line`);
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text === '') throw new UsageError(`${option}: standard input is empty; it takes one line`);
  if (/[\r\n]/.test(text)) throw new UsageError(`${option}: standard input holds more than one line; it takes one`);
  return text;
}
