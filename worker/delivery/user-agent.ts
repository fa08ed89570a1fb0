/**
 * The `user-agent` of every delivery (docs/receiving.md, "The request"):
 * `app-webhooks/<version>`, the version being package.json's.
 */
import pkg from '../../package.json' with { type: 'json' };

/** `app-webhooks/<version from package.json>`. */
export const USER_AGENT = `app-webhooks/${pkg.version}`;
