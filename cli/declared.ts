/**
 * What a command declares to yargs (positionals, options, conflicts, subcommands), read by
 * running its builder against a recorder that stands in for yargs. docs/cli.md is written from it
 * (reference.ts), and the command line is checked against it before yargs reads it
 * (command-line.ts), so both follow what the parser is told.
 */
import type { Argv } from 'yargs';
import type { GlobalArgs } from './command.ts';

/** One option or positional as a command declares it to yargs. */
export interface OptionSpec {
  type?: string;
  describe?: string;
  demandOption?: boolean | string;
  default?: unknown;
  array?: boolean;
  choices?: readonly unknown[];
  alias?: string | readonly string[];
}

export interface Declared {
  positionals: [string, OptionSpec][];
  options: [string, OptionSpec][];
  conflicts: [string, string][];
  subcommands: { command: string; describe: string; declared: Declared }[];
}

export type Builder = (yargs: Argv<GlobalArgs>) => unknown;

/** Runs `builder` against a stand-in for yargs that records what it declares. */
export function declared(builder: Builder): Declared {
  const found: Declared = { positionals: [], options: [], conflicts: [], subcommands: [] };
  const recorder: object = new Proxy(
    {},
    {
      get(_target, property) {
        switch (property) {
          case 'positional':
            return (name: string, spec: OptionSpec) => {
              found.positionals.push([name, spec]);
              return recorder;
            };
          case 'option':
          case 'options':
            return (name: string | Record<string, OptionSpec>, spec?: OptionSpec) => {
              if (typeof name === 'string') found.options.push([name, spec ?? {}]);
              else found.options.push(...Object.entries(name));
              return recorder;
            };
          case 'conflicts':
            return (a: string, b: string | readonly string[]) => {
              for (const other of typeof b === 'string' ? [b] : b) found.conflicts.push([a, other]);
              return recorder;
            };
          case 'command':
            return (sub: { command: string; describe: string; builder: Builder }) => {
              found.subcommands.push({ command: sub.command, describe: sub.describe, declared: declared(sub.builder) });
              return recorder;
            };
          default:
            // anything else yargs offers (a check, an example) declares nothing recorded here
            return typeof property === 'string' ? () => recorder : undefined;
        }
      },
    },
  );
  builder(recorder as Argv<GlobalArgs>);
  return found;
}
