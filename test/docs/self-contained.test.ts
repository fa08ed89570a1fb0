/**
 * The repository has to explain itself: whoever reads it has neither our issue tracker, nor the
 * record of who worked on what when, nor the specification document the service was first built
 * from. So no tracked source, test or document line may cite a tracker issue or a numbered stretch
 * of work ("issue 14", "issues 13 and 14", "item 3", "session 8", a bare "#14") or that document
 * ("the spec", "spec:", "service-spec"); a comment says what a thing is for and why, and a rule is
 * written down in this repository (the code, README.md or docs/). An upstream project's issue keeps
 * its number when it is written with its repository (`graphile/worker#123`, `svix-webhooks #2058`,
 * a github.com address); ordinary words stay ordinary ("an item of the list", "a session cookie",
 * "the sessions table": only the word followed by a number is a citation).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/processes.ts';

/** The tracked files this rule reads: sources, tests, documents, migrations, manifests, templates. */
const CHECKED = /\.(?:ts|js|md|sql|ya?ml|json|eta|css)$/;
const UNCHECKED = new Set([
  'package-lock.json', // npm's own record of the dependency tree, not ours to word
  'test/docs/self-contained.test.ts', // this file spells out the very patterns it looks for
]);

/**
 * Upstream projects whose issues may be cited as `<name> #123` (the name is the repository's):
 * anything else followed by a bare `#123` reads as our own tracker.
 */
const UPSTREAM = [
  'svix-webhooks',
  'svix',
  'convoy',
  'hook0',
  'graphile-worker',
  'undici',
  'postgres',
  'postgres.js',
  'koa',
  'graphql-js',
  'graphql-http',
  'helmet',
  'ioredis',
  'typescript',
  'standard-webhooks',
  'ajv',
  'yargs',
  'zod',
];
const UPSTREAM_NAME = new RegExp(
  `(?:^|[\\s(\`'"])(?:${UPSTREAM.map((name) => name.replace(/[.-]/g, '\\$&')).join('|')})(?:'s)?\\s+$`,
  'i',
);

/** What a line cites, as the words that cite it; none for a clean line. */
function citations(line: string, path = ''): string[] {
  // a web address (a github.com issue, a spec on the web) names its source itself
  const text = line.replace(/\bhttps?:\/\/\S+/g, ' ');
  const found: string[] = [];
  const add = (pattern: RegExp, keep: (match: RegExpExecArray) => boolean = () => true) => {
    for (const match of text.matchAll(pattern)) if (keep(match)) found.push(match[0].trim());
  };

  // "issue 14", "issues 13 and 14", "Item 4", "session 8", "session-2", "ticket #3", "PR 7": a
  // word of the tracker or of the work diary followed by its number; "graphile-worker issue 123"
  // and "porsager/postgres issue 1066" name their project
  const upstream = (match: RegExpExecArray) =>
    !UPSTREAM_NAME.test(text.slice(0, match.index)) && !/[\w.-]+\/[\w.-]+\s+$/.test(text.slice(0, match.index));
  add(/\b(?:issues?|items?|sessions?|tickets?|PRs?|pull requests?)(?:\s+|-)#?\d+/gi, upstream);

  // a bare "#14": allowed after `owner/repo` (no space: the lookbehind) or a known project's name;
  // a stylesheet's colours (`#374151`) are not references
  if (!path.endsWith('.css')) {
    add(/(?<![\w/&#$-])#\d+\b(?![\w-])/g, (match) => !UPSTREAM_NAME.test(text.slice(0, match.index)));
  }

  // the specification document: "the spec", "the specification" alone (a named one, "the ULID
  // specification", is fine), "spec:", "spec section", "(spec ...", "Spec "Versioning"",
  // "Spec (Errors)", "Spec, Limits", "the spec's"; never an identifier (`spec.payload`,
  // `job_spec`) nor a YAML `spec:` key of a Kubernetes manifest
  add(/\bthe spec(?:ification)?\b(?!-)/gi);
  add(/\bservice-spec\b/gi);
  // a `spec:` parameter or property of code (`(route, spec: Operation)`, `{ schema: boolean;
  // spec: boolean }`) is a name, on a line that is code rather than a comment
  const comment = /^\s*(?:\*|\/\/|\/\*|--|#|<!--)/.test(text);
  if (!/^\s*(?:-\s+)?spec:/.test(text)) {
    add(
      /(?<![\w$.-])spec(?:ification)?\s*(?::|§|section\b)/gi,
      (match) => comment || !/(?:[\w>]\(|[,;{]\s*)$/.test(text.slice(0, match.index)),
    );
  }
  add(
    /(?<![\w$.-])spec(?:ification)?'s\b/gi,
    (match) =>
      !/(?:GraphQL-over-HTTP|OpenAPI|ULID|Standard Webhooks|JSON Schema|HTTP|Fetch|RFC \d+)\s+$/i.test(
        text.slice(0, match.index),
      ),
  );
  add(/(?<![\w$.-])[Ss]pec\s*(?:\(|"|“|`)/g);
  add(/(?<![\w$.-])[Ss]pec,\s+[A-Z]/g);
  add(/(?<=^|\s)\(spec\b(?![.?,\]])/gi);
  add(/\b(?:per|by|see|from|in) spec\b(?![.?(\w])/gi);
  return found;
}

function offences(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => CHECKED.test(file) && !UNCHECKED.has(file));
  const lines: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(`${ROOT}${file}`, 'utf8');
    } catch {
      continue; // deleted in the work tree, not yet from the index
    }
    text.split('\n').forEach((line, index) => {
      const cited = citations(line, file);
      if (cited.length)
        lines.push(`${file}:${index + 1}: ${cited.map((words) => JSON.stringify(words)).join(', ')}: ${line.trim()}`);
    });
  }
  return lines;
}

describe('the repository speaks for itself', () => {
  it('finds citations of the tracker, of numbered work and of the specification document', () => {
    for (const line of [
      ' * Delivery outcome (issue 14): a 410 disables the endpoint.',
      'the backlog drained slowest when it was largest (issues 13 and 14)',
      '## Item 4, session 8: emit throughput',
      '// measured in session 7',
      '## Delivery after the session-2 changes',
      'merged in PR 12',
      '// see #14',
      'fixed by #14.',
      ' * (spec: Delivery outcome) 2xx is done',
      ' * The account paths (issue 13; spec: Users and roles).',
      "  'errors', // the error handler (spec: last step; wraps all below)",
      '// as the spec says',
      'the specification is silent here',
      'written per service-spec.md',
      '/** Spec (Errors): logged at most once every ten seconds. */',
      ' * Spec "Versioning" 2: a route declared with `version` answers 406',
      '/** Spec, Limits: "timestamp tolerance 300 seconds". */',
      " * the spec's last two steps",
      '// spec section 4.2',
      "it('answers 410 (issue 6)', async () => {",
    ])
      assert.notDeepEqual(citations(line), [], line);
  });

  it('lets ordinary words and upstream references stand', () => {
    for (const line of [
      'an item of the list',
      'a session cookie outlives the tab',
      'the sessions table holds one row a sign-in',
      'graphile/worker#123 keeps the job locked',
      'svix-webhooks #2058 asks for the same',
      'graphile-worker issue 123 is the same bug',
      'see https://github.com/graphile/worker/issues/123',
      'per the GraphQL-over-HTTP spec, 200 for validation errors',
      "the GraphQL-over-HTTP spec's media type",
      'the example of the ULID specification',
      'const status = spec?.status ?? 200;',
      'const spec = contract(route, model);',
      'successResponse(route, spec, options)',
      'fields.specs.map((spec) => spec?.job?.id);',
      'parameters.push(...(spec?.query ?? []));',
      'function successResponse(route: CompiledRoute, spec: WebhookOperation | undefined): Json {',
      'export function defineCommand<A extends object>(spec: {',
      '  const [row] = await sql<{ schema: boolean; spec: boolean }[]>`',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the line quoted is source text holding a template
      'sql`row(${spec.payload})::graphile_worker.job_spec`',
      '  spec:',
      '    spec:',
      '  - spec: {}',
      'a PKCS#8 key',
      'run step 3, then step 4',
    ])
      assert.deepEqual(citations(line), [], line);
    assert.deepEqual(citations('.status-disabled { color: #374151; }', 'api/console/assets/console.css'), []);
  });

  it('no tracked line cites the tracker, numbered work or the specification document', () => {
    const found = offences();
    assert.equal(
      found.length,
      0,
      `${found.length} line(s) cite what a reader does not have; say what and why instead:\n${found.join('\n')}`,
    );
  });
});
