/**
 * Thrown when the configuration cannot be used; `problems` lists every one, not the first. A
 * module of its own so that telling this failure apart (cli/failure.ts) does not load the
 * configuration's schema and resolver.
 */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
