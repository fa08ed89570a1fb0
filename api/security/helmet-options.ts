/**
 * The koa-helmet options of the service: a Content Security
 * Policy that allows hot-reload tooling in development only and drops the `https:` wildcard from
 * `style-src` and `font-src`; HSTS in production only; `Cross-Origin-Opener-Policy: same-origin`;
 * `Referrer-Policy: same-origin` (a console form's own post carries its `Origin`);
 * `upgrade-insecure-requests` only for requests that arrived over https unless configured on.
 * `config.helmet.options` is merged over these (objects merged, anything else replaced).
 */
import type { Environment } from '../../shared/config/index.ts';

type Tree = Record<string, unknown>;

const isTree = (value: unknown): value is Tree => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Deep merge of plain objects; arrays and everything else from `over` replace. */
export function mergeOptions(base: Tree, over: Tree): Tree {
  const merged: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    merged[key] = isTree(value) && isTree(base[key]) ? mergeOptions(base[key] as Tree, value) : value;
  }
  return merged;
}

/** CSP directive names as helmet writes them (`upgradeInsecureRequests` -> `upgrade-insecure-requests`). */
const dashed = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

function dashDirectives(options: Tree): Tree {
  const csp = options.contentSecurityPolicy;
  if (!isTree(csp) || !isTree(csp.directives)) return options;
  const directives = Object.fromEntries(Object.entries(csp.directives).map(([name, value]) => [dashed(name), value]));
  return { ...options, contentSecurityPolicy: { ...csp, directives } };
}

/** The service's own directives for an environment (before the configured ones). */
export function baseDirectives(env: Environment): Record<string, string[] | null> {
  const development = env === 'development';
  return {
    'default-src': ["'self'"],
    'base-uri': ["'self'"],
    'font-src': ["'self'", 'data:'],
    'form-action': ["'self'"],
    'frame-ancestors': ["'self'"],
    'img-src': development ? ["'self'", 'data:', 'blob:'] : ["'self'", 'data:'],
    'object-src': ["'none'"],
    'script-src': development ? ["'self'", "'unsafe-inline'", "'unsafe-eval'", 'blob:'] : ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': development ? ["'self'", "'unsafe-inline'", 'blob:'] : ["'self'"],
    'connect-src': development ? ["'self'", 'ws:', 'wss:'] : ["'self'"],
    'worker-src': development ? ["'self'", 'blob:'] : ["'self'"],
    'upgrade-insecure-requests': null,
  };
}

/**
 * The helmet options for one kind of request: `secure` is true for requests that arrived over
 * https (`ctx.secure`, which honours `trustProxy` and `X-Forwarded-Proto`), which alone get
 * `upgrade-insecure-requests` unless the configuration sets that directive itself.
 */
export function helmetOptions(input: { env: Environment; configured: Readonly<Tree>; secure: boolean }): Tree {
  const production = input.env === 'production';
  const base: Tree = {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { ...baseDirectives(input.env), ...(input.secure ? { 'upgrade-insecure-requests': [] } : {}) },
    },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    // helmet's no-referrer makes browsers send `Origin: null` with the console's own form posts,
    // which the CSRF check must refuse; same-origin still sends no referrer to other sites
    referrerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: production ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  };
  return mergeOptions(base, dashDirectives(input.configured as Tree));
}
