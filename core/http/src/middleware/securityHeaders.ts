/**
 * The usual security headers on every response (DESIGN.md "Security decisions"). The API answers JSON and plain
 * text only, so its content security policy allows nothing at all: a response opened as a page can run no
 * script, load nothing and be framed by no one. The web app's pages set their own, `'self'` only.
 *
 * Hand-written rather than `hono/secure-headers`, which sets its headers after the route, so that
 * @hono/node-server builds a full response for every request (`presetHeaders.ts`, issue 10), and which would
 * overwrite the web app's own policy.
 */
import type { HeaderList } from "./presetHeaders.js"

export const CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/** One year; `includeSubDomains` is left out because the operator's other hosts are not ours to decide. */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000"

export interface SecurityHeadersOptions {
  /** The origin the service is reached at; HSTS is sent only when it is https, as browsers ignore it on http. */
  readonly publicOrigin: string | undefined
}

/** The security headers of every response (set by `presetHeaders.ts`). */
export const securityHeaders = (options: SecurityHeadersOptions): HeaderList => [
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "DENY"],
  ["Referrer-Policy", "no-referrer"],
  // Web app pages bring their own policy (`../web/webApp.ts`); everything else may run and load nothing.
  ["Content-Security-Policy", CONTENT_SECURITY_POLICY],
  // Keeps other sites from embedding responses as images or scripts; CORS requests are not affected.
  ["Cross-Origin-Resource-Policy", "same-origin"],
  ...(options.publicOrigin?.startsWith("https://") === true
    ? [["Strict-Transport-Security", STRICT_TRANSPORT_SECURITY] as const]
    : []),
]
