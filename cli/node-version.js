/**
 * The Node.js this project runs on (package.json `engines`). Plain JavaScript, as bin.js is: an
 * older Node stops at the first TypeScript module or at a `node:module` export it lacks, with a
 * stack trace that does not say what to do; bin.js asks this first and prints one line instead.
 */
export const NODE_MAJOR = 24;

/** Why `version` (`process.version`) cannot run the `app` command, or null when it can. */
export function nodeVersionProblem(version) {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= NODE_MAJOR) return null;
  return `needs Node.js ${NODE_MAJOR} or later, and this is ${version}: run it as \`npx app\`, or put the project's node_modules/.bin first on PATH (the project installs Node ${NODE_MAJOR})`;
}
