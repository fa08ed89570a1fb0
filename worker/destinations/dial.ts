/**
 * Where a broker connection goes: the host of the destination resolved once, every address
 * checked by the address rules (shared/webhooks/address-rules.ts), and one checked address
 * chosen to connect to. Senders connect to that address and give TLS the host name as
 * `servername`, so the certificate is still checked for the name and nothing resolves it again
 * between the check and the connection (no DNS rebinding).
 */
import { isIP } from 'node:net';
import { resolveAndCheck, type HostLookup } from '../../shared/webhooks/address-rules.ts';
import { isAddressRefusal, refused, type AttemptResult } from '../delivery/post.ts';

/** A checked address to connect to, and the name it was resolved from. */
export interface DialTarget {
  /** An IP address that passed the address rules (or any, with `allowPrivate`). */
  address: string;
  family: 4 | 6;
  /** The host as the URL names it: TLS `servername` (unless it is an IP literal). */
  host: string;
  port: number;
}

/** The TLS `servername` of `dial`: the host name, or none for an IP literal (SNI carries names only). */
export const servernameOf = (dial: DialTarget): string | undefined => (isIP(dial.host) === 0 ? dial.host : undefined);

/**
 * Resolves and checks `host`, answering the address to connect to, or the attempt's result when
 * the host is refused (`address-refused`) or does not resolve (`connection-error`: DNS failures
 * can pass).
 */
export async function dialTarget(
  host: string,
  port: number,
  options: { allowPrivate: boolean; lookup?: HostLookup },
): Promise<DialTarget | AttemptResult> {
  const started = performance.now();
  try {
    const [first] = await resolveAndCheck(host, options);
    return { address: first.address, family: first.family === 6 ? 6 : 4, host, port };
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    if (isAddressRefusal(error)) return refused(error, durationMs);
    return { kind: 'connection-error', error: error instanceof Error ? error.message : String(error), durationMs };
  }
}
