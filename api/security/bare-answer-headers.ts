/**
 * The security headers of the answers made before any middleware runs (what Node's HTTP parser
 * refuses, an unmet `Expect`), which helmet never sees: their body is a problem+json document and
 * nothing else, so they allow nothing, neither sniffing another type out of it, nor framing it,
 * nor loading anything from it.
 */
export const BARE_ANSWER_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
});
