import { readFileSync } from 'node:fs';

export interface ProcessType {
  name: string;
  command: string;
}

/** The process types of a Procfile (`name: command` lines), in file order. */
export function readProcfile(path: string): ProcessType[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => /^([A-Za-z0-9_-]+):\s*(.+)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ name: match[1], command: match[2] }));
}
