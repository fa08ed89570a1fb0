/**
 * Outbound request safety for webhook deliveries: no request reaches a private address (SSRF).
 *
 * Used when an endpoint is registered and again by the worker before every request: the URL
 * shape rules (https, a host, no credentials), and the refused address ranges, applied to an IP
 * literal in the URL or to every address a host name resolves to.
 *
 * The refused ranges are data (`REFUSED_RANGES`). An address is judged by the most specific
 * (longest prefix) range that contains it, as a router would. Two IPv6 ranges carry an IPv4
 * address in their low 32 bits (`embedsIpv4`): for those the embedded IPv4 address is judged by
 * the IPv4 ranges, so `::ffff:8.8.8.8` is allowed and `::ffff:127.0.0.1` refused.
 *
 * Choices beyond the usual list (loopback, link-local, private, shared, multicast, reserved,
 * documentation and benchmarking ranges):
 * - All of `::/8` is refused (it holds `::`, `::1`, the deprecated IPv4-compatible `::a.b.c.d`
 *   and the SIIT forms); only the IPv4-mapped `::ffff:0:0/96` inside it is judged by its IPv4.
 * - NAT64 well-known prefix `64:ff9b::/96`: judged by the embedded IPv4, so a public IPv4 address
 *   reached through NAT64 (an IPv6-only host with DNS64) stays deliverable.
 * - 6to4 `2002::/16` and the NAT64 local-use prefix `64:ff9b:1::/48` are refused outright: 6to4 is
 *   deprecated (RFC 7526) and the local-use prefix places the IPv4 at an operator-chosen offset,
 *   so it cannot be extracted reliably.
 * - The IPv6 special-purpose blocks are refused as their IPv4 counterparts are: all of the
 *   protocol assignments `2001::/23` (as `192.0.0.0/24`; its few anycast services and overlay
 *   identifiers are no receiver), benchmarking `2001:2::/48`, the second documentation prefix
 *   `3fff::/20`, and the SRv6 segment identifiers `5f00::/16` (routed only inside an operator's
 *   own network).
 * - Azure's platform endpoint `168.63.129.16/32`: a public address, but every Azure machine reaches
 *   its own host there (the WireServer that hands the VM agent its configuration and extension
 *   settings, the DNS resolver), as it reaches the metadata service at `169.254.169.254`.
 * - The names `localhost` and `*.localhost` (RFC 6761, always loopback) are refused by name.
 * - Any port is accepted: the address is what decides whose machine a request reaches, and a
 *   public address is its receiver's own to listen on where it likes (8443, 9000 behind a
 *   gateway). What a port list would add against a public host, the pinned socket, the unfollowed
 *   redirects and the 64 kB answer bound already limit: one POST of our signed body, answered or not.
 */
import { isIP } from 'node:net';
import { promises as dns } from 'node:dns';
import { AppError } from '../errors/app-error.ts';
import { schemeNames, schemeOf } from './destinations/kinds.ts';
import { brokerHost, parseBrokerUrl } from './destinations/parse.ts';

/** One refused address range. */
export interface RefusedRange {
  /** Canonical CIDR notation, e.g. `10.0.0.0/8`. */
  readonly cidr: string;
  readonly family: 4 | 6;
  /** What the range is, for the operator (appears in the refusal's `rule`). */
  readonly name: string;
  /** The low 32 bits hold an IPv4 address, judged by the IPv4 ranges instead of refusing. */
  readonly embedsIpv4?: true;
}

/** The refused ranges, the usual list, then ours (matching uses the longest prefix). */
export const REFUSED_RANGES: readonly RefusedRange[] = [
  { cidr: '127.0.0.0/8', family: 4, name: 'loopback' },
  { cidr: '::1/128', family: 6, name: 'loopback' },
  { cidr: '169.254.0.0/16', family: 4, name: 'link-local, cloud metadata' },
  { cidr: 'fe80::/10', family: 6, name: 'link-local' },
  { cidr: '10.0.0.0/8', family: 4, name: 'private, RFC 1918' },
  { cidr: '172.16.0.0/12', family: 4, name: 'private, RFC 1918' },
  { cidr: '192.168.0.0/16', family: 4, name: 'private, RFC 1918' },
  { cidr: 'fc00::/7', family: 6, name: 'unique local' },
  { cidr: '100.64.0.0/10', family: 4, name: 'shared address space, carrier-grade NAT' },
  { cidr: '0.0.0.0/8', family: 4, name: '"this network", unspecified' },
  { cidr: '224.0.0.0/4', family: 4, name: 'multicast' },
  { cidr: '240.0.0.0/4', family: 4, name: 'reserved, with broadcast' },
  { cidr: '::/128', family: 6, name: 'unspecified' },
  { cidr: 'ff00::/8', family: 6, name: 'multicast' },
  { cidr: '192.0.2.0/24', family: 4, name: 'documentation, TEST-NET-1' },
  { cidr: '198.51.100.0/24', family: 4, name: 'documentation, TEST-NET-2' },
  { cidr: '203.0.113.0/24', family: 4, name: 'documentation, TEST-NET-3' },
  { cidr: '198.18.0.0/15', family: 4, name: 'benchmarking' },
  { cidr: '::/8', family: 6, name: 'reserved by IETF' },
  { cidr: '::/96', family: 6, name: 'IPv4-compatible IPv6, deprecated' },
  { cidr: '::ffff:0:0/96', family: 6, name: 'IPv4-mapped IPv6', embedsIpv4: true },
  { cidr: '2002::/16', family: 6, name: '6to4, deprecated' },
  { cidr: '64:ff9b::/96', family: 6, name: 'NAT64 well-known prefix', embedsIpv4: true },
  { cidr: '64:ff9b:1::/48', family: 6, name: 'NAT64 local-use prefix' },
  { cidr: '192.0.0.0/24', family: 4, name: 'IETF protocol assignments' },
  { cidr: '192.88.99.0/24', family: 4, name: '6to4 relay anycast, deprecated' },
  { cidr: '2001:db8::/32', family: 6, name: 'documentation' },
  { cidr: '2001::/32', family: 6, name: 'Teredo' },
  { cidr: 'fec0::/10', family: 6, name: 'site-local, deprecated' },
  { cidr: '100::/64', family: 6, name: 'discard-only' },
  { cidr: '2001::/23', family: 6, name: 'IETF protocol assignments' },
  { cidr: '2001:2::/48', family: 6, name: 'benchmarking' },
  { cidr: '3fff::/20', family: 6, name: 'documentation' },
  { cidr: '5f00::/16', family: 6, name: 'segment routing (SRv6) SIDs' },
  { cidr: '168.63.129.16/32', family: 4, name: 'Azure platform endpoint (WireServer, DNS), cloud metadata' },
];

/** Verdict on one address. */
export type AddressVerdict = { ok: true } | { ok: false; rule: string };

/** One resolved address, as `dns.lookup(host, {all: true})` answers. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves every address of a host name (default: `dns.promises.lookup(host, {all: true})`). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

const BITS = { 4: 32, 6: 128 } as const;

interface CompiledRange {
  range: RefusedRange;
  base: bigint;
  prefix: number;
  mask: bigint;
}

/** The address as an unsigned integer (32 bits for IPv4, 128 for IPv6); null when not an IP. */
export function ipToBigInt(ip: string): bigint | null {
  const text = unbracket(ip);
  const family = isIP(text);
  if (family === 4) return ipv4ToBigInt(text);
  if (family === 6) return ipv6ToBigInt(text);
  return null;
}

/** The text form of an address integer: dotted quad, or eight uncompressed hex groups. */
export function bigIntToIp(value: bigint, family: 4 | 6): string {
  if (family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  }
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}

/** The label a refusal by `range` carries as its `rule`, e.g. `loopback (127.0.0.0/8)`. */
export function ruleLabel(range: RefusedRange): string {
  return `${range.name} (${range.cidr})`;
}

function unbracket(ip: string): string {
  const inner = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  // A zone index (fe80::1%eth0) does not change which range the address is in.
  const zone = inner.indexOf('%');
  return zone === -1 ? inner : inner.slice(0, zone);
}

function ipv4ToBigInt(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6ToBigInt(text: string): bigint {
  let body = text;
  const lastColon = body.lastIndexOf(':');
  if (body.slice(lastColon + 1).includes('.')) {
    // Trailing dotted quad (::ffff:1.2.3.4) written as its two 16-bit groups.
    const v4 = ipv4ToBigInt(body.slice(lastColon + 1));
    body = `${body.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = body.split('::');
  const head = halves[0] === '' ? [] : halves[0].split(':');
  const rest = halves.length === 2 && halves[1] !== '' ? halves[1].split(':') : [];
  const zeros = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array<string>(zeros).fill('0'), ...rest];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(`0x${group}`), 0n);
}

function compile(range: RefusedRange): CompiledRange {
  const slash = range.cidr.indexOf('/');
  const address = range.cidr.slice(0, slash);
  const prefix = Number(range.cidr.slice(slash + 1));
  const bits = BITS[range.family];
  const base = ipToBigInt(address);
  if (base === null || isIP(address) !== range.family || !Number.isInteger(prefix) || prefix < 0 || prefix > bits) {
    throw new AppError(500, `refused range ${range.cidr} is not a valid IPv${range.family} CIDR`, {
      code: 'APP_WEBHOOK_RANGE_INVALID',
    });
  }
  const all = (1n << BigInt(bits)) - 1n;
  const mask = all ^ ((1n << BigInt(bits - prefix)) - 1n);
  if ((base & mask) !== base) {
    throw new AppError(500, `refused range ${range.cidr} has host bits set`, { code: 'APP_WEBHOOK_RANGE_INVALID' });
  }
  return { range, base, prefix, mask };
}

// Longest prefix first, so the first match is the most specific range.
const COMPILED: readonly CompiledRange[] = REFUSED_RANGES.map(compile).sort((a, b) => b.prefix - a.prefix);

function mostSpecific(value: bigint, family: 4 | 6): CompiledRange | undefined {
  return COMPILED.find((c) => c.range.family === family && (value & c.mask) === c.base);
}

/**
 * Judges one IP address (IPv4 or IPv6; brackets and a zone index are accepted) against
 * `REFUSED_RANGES`. Anything that is not an IP address is refused.
 */
export function checkAddress(ip: string): AddressVerdict {
  const text = unbracket(ip);
  const family = isIP(text);
  if (family !== 4 && family !== 6) return { ok: false, rule: 'not an IP address' };
  const value = family === 4 ? ipv4ToBigInt(text) : ipv6ToBigInt(text);
  const match = mostSpecific(value, family);
  if (match === undefined) return { ok: true };
  if (match.range.embedsIpv4) {
    const embedded = value & 0xffffffffn;
    const inner = mostSpecific(embedded, 4);
    if (inner === undefined) return { ok: true };
    return {
      ok: false,
      rule: `${ruleLabel(match.range)} embedding ${bigIntToIp(embedded, 4)}: ${ruleLabel(inner.range)}`,
    };
  }
  return { ok: false, rule: ruleLabel(match.range) };
}

/** The rule refusing a host *name* regardless of what it resolves to, or null. */
function refusedName(hostname: string): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'localhost name (RFC 6761, always loopback)';
  return null;
}

/** The authority part of `raw` as written (between `//` and the path), or null without `//`. */
function writtenAuthority(raw: string): string | null {
  const match = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/\\?#]*)/.exec(raw);
  return match === null ? null : match[1];
}

/**
 * `raw` as the WHATWG parser reads it: leading and trailing C0 controls and spaces dropped, tabs
 * and newlines removed wherever they are. The checks written on the text (`writtenAuthority`,
 * `redact`) read this, so that a url pasted with a space or a newline around it is judged, and
 * masked, as the parser sees it.
 */
const asParsed = (raw: string): string =>
  raw.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');

/**
 * `raw` with any userinfo replaced, so a password never reaches an error body or a log. In a url
 * the parser reads, the userinfo ends at the authority's last `@`; in one it refuses, a password
 * may hold the `/`, `?` or `#` that would end the authority (`https://u:p#ss@host`), so all up to
 * the text's last `@` is masked.
 */
export function redact(raw: string): string {
  const text = asParsed(raw);
  return URL.canParse(text)
    ? text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/\\?#]*@/, '$1***@')
    : text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/).*@/s, '$1***@');
}

/**
 * Parses a webhook URL (WHATWG) and checks its shape: a scheme of destinations/kinds.ts, `https`
 * or a broker's TLS scheme (`amqps`, `tls`, `mqtts`, `rediss`), a plain one (`http`, `amqp`,
 * `nats`, `mqtt`, `redis`) only with `allowHttp`; a host written after `//`; no user name or
 * password for an HTTP receiver (a broker's credentials are accepted: the caller seals them);
 * a broker URL must name where its messages go (destinations/parse.ts). An IP literal host
 * (WHATWG normalises `127.1`, `0x7f.1` and `2130706433` to `127.0.0.1`, for broker schemes too)
 * and the name `localhost` are checked against the address rules unless `allowPrivate`. Host
 * names are not resolved here (see `resolveAndCheck`).
 *
 * Throws AppError 422 `APP_WEBHOOK_URL_INVALID` (data `{field, value, reason}`) or
 * `APP_WEBHOOK_ADDRESS_REFUSED` (data also `address` and `rule`); `value` never shows a password.
 */
export function checkWebhookUrl(raw: string, options: { allowHttp: boolean; allowPrivate: boolean }): URL {
  const invalid = (reason: string, value = redact(raw), lift?: { setting: string; hint: string }) =>
    new AppError(422, `webhook url is not acceptable: ${reason}${lift ? `; ${lift.hint}` : ''}`, {
      code: 'APP_WEBHOOK_URL_INVALID',
      data: { field: 'url', value, reason, ...(lift ? { setting: lift.setting } : {}) },
    });

  if (typeof raw !== 'string') throw invalid('must be a string', raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('not a valid URL');
  }
  const scheme = schemeOf(url.protocol);
  if (scheme === undefined || (!scheme.tls && !options.allowHttp)) {
    const allowed = schemeNames(options.allowHttp).join(', ');
    const lift = scheme !== undefined ? { setting: 'webhooks.allowHttp', hint: ALLOW_HINT.http } : undefined;
    throw invalid(`scheme ${url.protocol.slice(0, -1)} is not allowed (${allowed} only)`, redact(raw), lift);
  }
  // WHATWG forgives `https:///host` and `https:\\host`; a registered URL must name its host
  // after `//` (RFC 3986 authority).
  const authority = writtenAuthority(asParsed(raw));
  if (authority === null || authority === '' || url.hostname === '') throw invalid('missing host');
  if (!scheme.credentials && (url.username !== '' || url.password !== '' || authority.includes('@'))) {
    throw invalid('credentials are not allowed in the url');
  }
  parseBrokerUrl(url, redact(raw));
  if (!options.allowPrivate) {
    const host = scheme.kind === 'http' ? url.hostname : brokerHost(url);
    const literal = unbracket(host);
    let refusal: { address: string; rule: string } | null = null;
    if (isIP(literal) !== 0) {
      const verdict = checkAddress(literal);
      if (!verdict.ok) refusal = { address: literal, rule: verdict.rule };
    } else {
      const rule = refusedName(host);
      if (rule !== null) refusal = { address: host, rule };
    }
    if (refusal !== null) {
      throw new AppError(
        422,
        `webhook url address ${refusal.address} is refused: ${refusal.rule}; ${ALLOW_HINT.private}`,
        {
          code: 'APP_WEBHOOK_ADDRESS_REFUSED',
          data: {
            field: 'url',
            value: redact(raw),
            reason: 'address refused',
            ...refusal,
            setting: 'webhooks.allowPrivate',
          },
        },
      );
    }
  }
  return url;
}

/**
 * What to say after a refusal that a setting lifts: the setting, that every process needs it
 * (the web process and the CLI check at registration, the worker at each delivery), and the
 * local shortcut.
 */
export const ALLOW_HINT = {
  http: 'to allow plain http receivers and plain broker connections (local testing), set APP_WEBHOOKS__ALLOW_HTTP=true for the web process, the CLI and the worker (npm start -- --allow-local sets it for all)',
  private:
    'to allow receivers on loopback or private addresses (local testing), set APP_WEBHOOKS__ALLOW_PRIVATE=true for the web process, the CLI and the worker (npm start -- --allow-local sets it for all)',
} as const;

const defaultLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true });

/**
 * Resolves `hostname` once, with all its addresses, and checks every one: a single refused
 * answer refuses the name (AppError 422 `APP_WEBHOOK_ADDRESS_REFUSED`, data
 * `{address, rule, host}`). An IP literal (brackets allowed) is checked without resolving.
 * With `allowPrivate` nothing is refused. A name that does not resolve, or resolves to nothing,
 * throws AppError 422 `APP_WEBHOOK_HOST_UNRESOLVABLE` (data `{host, reason}`).
 */
export async function resolveAndCheck(
  hostname: string,
  options: { allowPrivate: boolean; lookup?: HostLookup },
): Promise<ResolvedAddress[]> {
  const refuse = (address: string, rule: string) =>
    new AppError(
      422,
      `webhook host ${hostname} resolves to refused address ${address}: ${rule}; ${ALLOW_HINT.private}`,
      {
        code: 'APP_WEBHOOK_ADDRESS_REFUSED',
        data: { address, rule, host: hostname, setting: 'webhooks.allowPrivate' },
      },
    );

  const literal = unbracket(hostname);
  const literalFamily = isIP(literal);
  let addresses: ResolvedAddress[];
  if (literalFamily !== 0) {
    addresses = [{ address: literal, family: literalFamily }];
  } else {
    const nameRule = refusedName(hostname);
    if (nameRule !== null && !options.allowPrivate) throw refuse(hostname, nameRule);
    try {
      addresses = await (options.lookup ?? defaultLookup)(hostname);
    } catch (error) {
      const reason = (error as { code?: unknown })?.code ?? (error as Error)?.message ?? String(error);
      throw new AppError(422, `webhook host ${hostname} does not resolve (${String(reason)})`, {
        code: 'APP_WEBHOOK_HOST_UNRESOLVABLE',
        data: { host: hostname, reason: String(reason) },
        cause: error,
      });
    }
    if (!Array.isArray(addresses) || addresses.length === 0) {
      throw new AppError(422, `webhook host ${hostname} resolves to no address`, {
        code: 'APP_WEBHOOK_HOST_UNRESOLVABLE',
        data: { host: hostname, reason: 'no address' },
      });
    }
  }
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const verdict = checkAddress(address);
      if (!verdict.ok) throw refuse(address, verdict.rule);
    }
  }
  return addresses.map(({ address, family }) => ({ address, family }));
}
