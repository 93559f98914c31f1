/**
 * The client of a request, resolved once by the `client` middleware at the top of every app and read by rate
 * limits, the audit log and the cookies (`clientAddress`, `isHttps`). The host supplies only the socket's peer
 * (`AppOptions.clientAddress`); what proxies say is decided here, in one place (`./trustedProxies.ts`).
 */
import type { Context, MiddlewareHandler } from "hono"
import { type Client, NO_TRUSTED_PROXIES, resolveClient, type TrustedProxies } from "./trustedProxies.js"

// One Context per request: the resolution lives exactly as long as the request.
const resolved = new WeakMap<Context, Client>()

export interface ClientOptions {
  /** The socket's peer address, read by the host from its server; without it every request is one client. */
  readonly peerAddress?: ((c: Context) => string | undefined) | undefined
  readonly trustedProxies?: TrustedProxies | undefined
}

export const client =
  (options: ClientOptions): MiddlewareHandler =>
  async (c, next) => {
    resolved.set(
      c,
      resolveClient(
        options.trustedProxies ?? NO_TRUSTED_PROXIES,
        options.peerAddress?.(c),
        { forwardedFor: c.req.header("x-forwarded-for"), forwardedProto: c.req.header("x-forwarded-proto") },
        new URL(c.req.url).protocol === "https:",
      ),
    )
    await next()
  }

/** The client's address, for per-client rate limits and the audit log. */
export const clientAddress = (c: Context): string | undefined => resolved.get(c)?.address

/** Whether the client reached us over https, directly or through a trusted proxy. */
export const isHttps = (c: Context): boolean => resolved.get(c)?.https === true
