/**
 * The rule of the settings that hold a URL of another service or of the web process itself
 * (`publicUrl`, the OTLP collector's `telemetry.endpoint` and `telemetry.tracesEndpoint`), judged
 * with the other rules once every layer is laid (shared/config/resolve.ts). A value that is not an
 * absolute URL of the schemes the setting's user takes was otherwise taken as it was: `publicUrl`
 * made links such as `not a url/reset-password?token=…` that no mail reader can follow, and an
 * unparseable collector address ended the CLI with the exporter's words naming no setting, or left
 * every export to fail in the background. The message names the setting and its variable, and never
 * repeats the value, which may carry credentials.
 */

interface UrlRule {
  /** The key's path and its conventional variable: `telemetry.endpoint (OTEL_EXPORTER_OTLP_ENDPOINT)`. */
  setting: string;
  /** A value that would do, to show in the message. */
  example: string;
  /** `host:port` without a scheme is what the gRPC exporter reads as `https://host:port`. */
  schemelessUnderGrpc?: boolean;
}

/** A `check` rule: an empty value or none is fine, anything else must be an `http(s)://` URL with a host. */
function httpUrl(rule: UrlRule) {
  return (value: unknown, config: Readonly<Record<string, unknown>>): string[] => {
    if (typeof value !== 'string' || value.trim() === '') return [];
    let text = value.trim();
    const protocol = (config.telemetry as { protocol?: string } | undefined)?.protocol;
    if (rule.schemelessUnderGrpc && protocol === 'grpc' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
      text = `https://${text}`;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return [`${rule.setting} is not a URL, such as ${rule.example}`];
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '')
      return [`${rule.setting} must be an http or https URL, such as ${rule.example}`];
    return [];
  };
}

export const checkPublicUrl = httpUrl({
  setting: 'publicUrl (APP_PUBLIC_URL)',
  example: 'https://hooks.example.com',
});

export const checkTelemetryEndpoint = httpUrl({
  setting: 'telemetry.endpoint (OTEL_EXPORTER_OTLP_ENDPOINT)',
  example: 'http://collector:4318',
  schemelessUnderGrpc: true,
});

export const checkTelemetryTracesEndpoint = httpUrl({
  setting: 'telemetry.tracesEndpoint (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)',
  example: 'http://collector:4318/v1/traces',
  schemelessUnderGrpc: true,
});
