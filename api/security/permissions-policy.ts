/**
 * The `Permissions-Policy` header: every powerful browser
 * feature below is denied (`feature=()`) unless `config.helmet.permissionsPolicy` allows it,
 * e.g. `{"geolocation": ["self"]}` -> `geolocation=(self)`.
 */

/**
 * Features denied by default: the powerful ones (sensors, devices, capture, credentials,
 * clipboard reading, payment, windows and screens) that browsers govern by this header. Each
 * name is one Chromium's header parser recognises (its `document.featurePolicy.features()`): a
 * name it does not know protects nothing there and is logged as a console warning on every
 * page, as `ambient-light-sensor`, `battery`, `bluetooth` and `web-share` were (Chromium
 * governs none of them by this header). Browsers that do not know a name ignore it; Firefox
 * ignores the header altogether.
 */
export const POWERFUL_FEATURES = [
  'accelerometer',
  'autoplay',
  'camera',
  'clipboard-read',
  'display-capture',
  'encrypted-media',
  'fullscreen',
  'gamepad',
  'geolocation',
  'gyroscope',
  'hid',
  'identity-credentials-get',
  'idle-detection',
  'local-fonts',
  'magnetometer',
  'microphone',
  'midi',
  'otp-credentials',
  'payment',
  'picture-in-picture',
  'publickey-credentials-create',
  'publickey-credentials-get',
  'screen-wake-lock',
  'serial',
  'usb',
  'window-management',
  'xr-spatial-tracking',
] as const;

/** One allow-list entry: `self` and `*` stay bare, origins are quoted. */
const entry = (value: string): string =>
  value === 'self' || value === "'self'" ? 'self' : value === '*' ? '*' : `"${value.replace(/"/g, '')}"`;

/**
 * The header value. An allowed feature's value is a list of `self`, `*` or origins (a single
 * string is a one-item list); an empty list, `false` or `null` denies it. A name not in the
 * default list is sent as given (a feature newer than the list): the browsers that do not know it
 * ignore it, and Chromium logs a warning for it.
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
