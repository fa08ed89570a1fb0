/**
 * The rules of a command line that yargs does not keep by itself, checked against what the
 * command declares (declared.ts) before yargs reads the line (run.ts). Each broken rule is a
 * usage error (exit 2) in one line naming the option, where yargs would have run the command
 * with a value the user never gave:
 *
 * - `--no-x` turns a boolean `--x` off. On an option that takes a value it is refused
 *   (`--no-events: --events takes a value`; yargs would set it to false, which a text option
 *   stores as the text "false"), unless the command declares `no-x` itself, as a documented
 *   meaning (`--no-filter`, `--no-schema`).
 * - An option that takes a value is given one: `--owner` last on the line, or followed by another
 *   option, is refused rather than read as an empty text.
 * - A number option's value is a whole number in decimal digits, a minus sign allowed (every
 *   number the commands take is a count, a page, a port or a rate): yargs reads `abc` as NaN,
 *   and `0x10` as 16, `1e3` as 1000, ` 12` as 12 and `1_000` as 1000, a value the user never
 *   wrote. A blank one (`--port "$PORT"` with the variable unset) is none either: yargs reads it
 *   as 0, which `listen` takes for "any free port" and a range check would report as a 0 never
 *   written. Nor is one past the safe integers (`--port 9007199254740993`): read as a number it
 *   is another (…992, or `1e+25`), which the command's range check would report. The range is
 *   the command's to check (`--limit 0`).
 * - A value is one of the option's choices, said in one line (`--signing rsa: must be one of
 *   hmac-sha256, ed25519`; yargs says it in two).
 * - A boolean takes no value but `=true` or `=false`: yargs reads `--dry-run=1` or `--dry-run=yes`
 *   as false, and `prune` would then remove for real.
 * - An option of one value is given once: twice, yargs passes both on as a list, which the
 *   command would refuse in words about its type, or not at all.
 *
 * A required argument given blank (`app jobs:show ""`, an unset shell variable) is refused by
 * `blankArgument` once yargs has read the line, where the command would look up the empty id and
 * say that nothing by that name exists.
 *
 * A word that starts with a dash and a digit (`--grace -1h`) after an option that takes one value
 * is that value, as yargs reads a negative number: `singleValued` names the options to declare
 * with `nargs: 1`, under which yargs reads it so. Without it, yargs read `-1h` as the options
 * `-1` and `-h` and printed the help.
 */
import type { Declared, OptionSpec } from './declared.ts';

/** A negative number, which yargs reads as a value wherever one is expected. */
const NEGATIVE_NUMBER = /^-([0-9]+(\.[0-9]+)?|\.[0-9]+)$/;

const takesValue = (declaration: OptionSpec) => declaration.type !== 'boolean' && declaration.type !== 'count';

/** A boolean's value written after `=` that yargs reads as the user meant. */
const BOOLEAN_VALUES = new Set(['true', 'false']);

/** `rateLimit` as yargs also accepts it, for `rate-limit`. */
const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** A whole number as the command line takes one: decimal digits, a minus sign allowed. */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

/** A value as the message shows it: quoted when blank or padded, which would otherwise not show. */
const shown = (value: string) => (value.trim() === '' || value.trim() !== value ? `'${value}'` : value);

/** An option's description as the end of a sentence ("Environment variable…" to "environment variable…"). */
const asClause = (text: string) => (/^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text);

export interface CommandLineRules {
  /** The options that take exactly one value (yargs is told `nargs: 1` for them). */
  singleValued: string[];
  /** The first rule `argv` breaks, as the one-line message of a usage error; undefined when none. */
  problem(argv: readonly string[]): string | undefined;
}

export function commandLineRules(found: Pick<Declared, 'options'>): CommandLineRules {
  const byName = new Map<string, [string, OptionSpec]>();
  for (const [name, declaration] of found.options) {
    byName.set(name, [name, declaration]);
    for (const alias of typeof declaration.alias === 'string' ? [declaration.alias] : (declaration.alias ?? []))
      byName.set(alias, [name, declaration]);
  }
  const lookup = (written: string) => byName.get(written) ?? byName.get(kebab(written));

  return {
    singleValued: found.options
      .filter(([, declaration]) => takesValue(declaration) && !declaration.array)
      .map(([name]) => name),
    problem(argv) {
      const end = argv.indexOf('--');
      const words = end < 0 ? argv : argv.slice(0, end);
      // asking for help is answered whatever else the line holds
      if (words.some((word) => word === '--help' || word === '-h')) return undefined;
      const given = new Set<string>();
      for (let index = 0; index < words.length; index++) {
        const match = /^--([^=]+)(?:=([\s\S]*))?$/.exec(words[index]) ?? /^-([A-Za-z])$/.exec(words[index]);
        if (match === null) continue;
        const [, written, attached] = match;
        const option = lookup(written);
        if (option === undefined) {
          // an option the command does not declare is yargs' to refuse, but `--no-x` of one that takes a value is ours
          const negated = /^no-(.+)$/.exec(written);
          const target = negated === null ? undefined : lookup(negated[1]);
          if (target !== undefined && takesValue(target[1])) return `--${written}: --${target[0]} takes a value`;
          continue;
        }
        const [name, declaration] = option;
        if (!takesValue(declaration)) {
          if (attached === undefined || BOOLEAN_VALUES.has(attached)) continue;
          const on = name.startsWith('no-') ? '' : ` (--${name} turns it on, --no-${name} off)`;
          return `--${written}=${attached}: --${name} takes no value${on}`;
        }
        if (!declaration.array) {
          if (given.has(name)) return `--${name} is given more than once: give it once`;
          given.add(name);
        }
        const values: string[] = [];
        if (attached !== undefined) values.push(attached);
        else if (declaration.array) {
          // yargs gives an array every word up to the next option
          while (index + 1 < words.length && !(/^-/.test(words[index + 1]) && !NEGATIVE_NUMBER.test(words[index + 1])))
            values.push(words[++index]);
        } else if (index + 1 < words.length && !/^-[^0-9]/.test(words[index + 1])) {
          // with nargs 1, yargs takes the next word unless it is an option (a dash and a digit is a value)
          values.push(words[++index]);
        }
        if (values.length === 0)
          return `--${name} needs a value${declaration.describe ? `: ${asClause(declaration.describe)}` : ''}`;
        for (const value of values) {
          if (declaration.type === 'number' && !DECIMAL_INTEGER.test(value))
            return `--${name} ${shown(value)}: must be a whole number in decimal digits`;
          if (declaration.type === 'number' && !Number.isSafeInteger(Number(value)))
            return `--${name} ${value}: must be a whole number from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`;
          if (declaration.choices && !declaration.choices.map(String).includes(value))
            return `--${name} ${shown(value)}: must be one of ${declaration.choices.map(String).join(', ')}`;
        }
      }
      return undefined;
    },
  };
}

/**
 * The first required argument of `positionals` that `args` (as yargs read the line) holds blank,
 * as the one-line message of a usage error; undefined when none.
 */
export function blankArgument(
  positionals: readonly [string, OptionSpec][],
  args: Readonly<Record<string, unknown>>,
): string | undefined {
  for (const [name, declaration] of positionals) {
    const value = args[name];
    if (declaration.demandOption && typeof value === 'string' && value.trim() === '')
      return `<${name}> is empty${declaration.describe ? `: give the ${asClause(declaration.describe)}` : ''}`;
  }
  return undefined;
}
