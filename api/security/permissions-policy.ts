/**
 * The `Permissions-Policy` header: every powerful browser
 * feature below is denied (`feature=()`) unless `config.helmet.permissionsPolicy` allows it,
 * e.g. `{"geolocation": ["self"]}` -> `geolocation=(self)`.
 */

/** Features denied by default. */
export const POWERFUL_FEATURES = [
  'accelerometer',
  'ambient-light-sensor',
  'autoplay',
  'battery',
  'bluetooth',
  'camera',
  'display-capture',
  'encrypted-media',
  'fullscreen',
  'gamepad',
  'geolocation',
  'gyroscope',
  'hid',
  'idle-detection',
  'local-fonts',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'picture-in-picture',
  'publickey-credentials-get',
  'screen-wake-lock',
  'serial',
  'usb',
  'web-share',
  'xr-spatial-tracking',
] as const;

/** One allow-list entry: `self` and `*` stay bare, origins are quoted. */
const entry = (value: string): string =>
  value === 'self' || value === "'self'" ? 'self' : value === '*' ? '*' : `"${value.replace(/"/g, '')}"`;

/**
 * The header value. An allowed feature's value is a list of `self`, `*` or origins (a single
 * string is a one-item list); an empty list, `false` or `null` denies it. Unknown feature names
 * are sent as given.
 */
export function permissionsPolicy(allowed: Readonly<Record<string, unknown>>): string {
  const policy = new Map<string, string[]>(POWERFUL_FEATURES.map((feature) => [feature, []]));
  for (const [feature, value] of Object.entries(allowed)) {
    const list =
      typeof value === 'string'
        ? [value]
        : Array.isArray(value)
          ? value.filter((item): item is string => typeof item === 'string')
          : [];
    policy.set(feature, list.map(entry));
  }
  return [...policy].map(([feature, list]) => `${feature}=(${list.join(' ')})`).join(', ');
}
