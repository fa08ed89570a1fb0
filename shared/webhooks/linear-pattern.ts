/**
 * Regular expressions that user input brings (a filter's `$regex`, an event type schema's
 * `pattern`) run on re2js, a linear-time engine: no pattern can backtrack catastrophically, so
 * no input can hold a process for longer than its length times the pattern's program allows.
 */
import type { RE2JS } from 're2js';

/** The number of instructions of a compiled pattern (re2js keeps its program on the compiled object). */
export function programSize(compiled: RE2JS): number | undefined {
  const program = (compiled as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog?.inst;
  return Array.isArray(program) ? program.length : undefined;
}
