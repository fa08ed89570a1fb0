/**
 * What an endpoint's URL scheme names: the kind of destination a delivery goes to, whether the
 * connection is encrypted, and the port used when the URL names none. HTTP receivers and four
 * brokers; everything else about an endpoint (registry, API, console) is the same for all.
 */

/** The kinds of destination a delivery can go to. */
export const DESTINATION_KINDS = ['http', 'amqp', 'nats', 'mqtt', 'redis'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/** One accepted URL scheme. */
export interface DestinationScheme {
  readonly kind: DestinationKind;
  /** TLS on the connection; a plain scheme is accepted only where `webhooks.allowHttp` is on. */
  readonly tls: boolean;
  readonly defaultPort: number;
  /** Credentials in the URL (`user:pass@`) are accepted: brokers authenticate this way. */
  readonly credentials: boolean;
}

/** The accepted schemes, keyed as `URL.protocol` writes them (with the colon). */
export const DESTINATION_SCHEMES: Readonly<Record<string, DestinationScheme>> = {
  'https:': { kind: 'http', tls: true, defaultPort: 443, credentials: false },
  'http:': { kind: 'http', tls: false, defaultPort: 80, credentials: false },
  'amqps:': { kind: 'amqp', tls: true, defaultPort: 5671, credentials: true },
  'amqp:': { kind: 'amqp', tls: false, defaultPort: 5672, credentials: true },
  'tls:': { kind: 'nats', tls: true, defaultPort: 4222, credentials: true },
  'nats:': { kind: 'nats', tls: false, defaultPort: 4222, credentials: true },
  'mqtts:': { kind: 'mqtt', tls: true, defaultPort: 8883, credentials: true },
  'mqtt:': { kind: 'mqtt', tls: false, defaultPort: 1883, credentials: true },
  'rediss:': { kind: 'redis', tls: true, defaultPort: 6379, credentials: true },
  'redis:': { kind: 'redis', tls: false, defaultPort: 6379, credentials: true },
};

/** The scheme entry of `protocol` (`URL.protocol`, with the colon), or undefined. */
export const schemeOf = (protocol: string): DestinationScheme | undefined =>
  Object.hasOwn(DESTINATION_SCHEMES, protocol) ? DESTINATION_SCHEMES[protocol] : undefined;

/** The TLS schemes, then the plain ones, as a reader would list them. */
export const schemeNames = (allowPlain: boolean): string[] =>
  Object.entries(DESTINATION_SCHEMES)
    .filter(([, scheme]) => scheme.tls || allowPlain)
    .map(([protocol]) => protocol.slice(0, -1));

/** Whether `url` names a broker (anything but an HTTP receiver). */
export const isBrokerUrl = (url: string): boolean => {
  const colon = url.indexOf(':');
  const scheme = colon === -1 ? undefined : schemeOf(url.slice(0, colon + 1).toLowerCase());
  return scheme !== undefined && scheme.kind !== 'http';
};
