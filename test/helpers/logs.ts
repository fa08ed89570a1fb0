import { Writable } from 'node:stream';

/** A log destination that parses each JSON line the logger writes into `lines`. */
export function linesInto(lines: Record<string, unknown>[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
}
