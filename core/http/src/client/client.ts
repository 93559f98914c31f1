/**
 * The client of a request, resolved at most once per request (on first use) and read by rate
 * limits, the audit log and the cookies (`clientAddress`, `isHttps`). The host supplies only the socket's peer
 * (`AppOptions.clientAddress`); what proxies say is decided here, in one place (`./trustedProxies.ts`).
 */
import type { Context, MiddlewareHandler } from "hono"
import { header } from "../request/header.js"
import { type Client, NO_TRUSTED_PROXIES, resolveClient, type TrustedProxies } from "./trustedProxies.js"

// One Context per request: the resolution lives exactly as long as the request.
const resolved = new WeakMap<Context, Client>()

const PENDING = "cofferClientOptions"

declare module "hono" {
  interface ContextVariableMap {
    [PENDING]: ClientOptions
  }
}

export interface ClientOptions {
  /** The socket's peer address, read by the host from its server; without it every request is one client. */
  readonly peerAddress?: ((c: Context) => string | undefined) | undefined
  readonly trustedProxies?: TrustedProxies | undefined
}

/**
 * Remembers how to resolve the client; the resolution itself waits until something asks (a rate limit, an audit
 * entry, a cookie), so a request that never asks (a token-checked read) pays for no header or URL parsing.
 */
export const client =
  (options: ClientOptions): MiddlewareHandler =>
  (c, next) => {
    rememberClient(c, options)
    return next()
  }

/** What `client` does, for a middleware that does more (`../app/requestFrame.ts`). */
export const rememberClient = (c: Context, options: ClientOptions): void => {
  // In the context's own variables: a weak map's entry per request costs the collector more.
  c.set(PENDING, options)
}

const resolve = (c: Context): Client | undefined => {
  const known = resolved.get(c)
  if (known !== undefined) return known
  const options = c.get(PENDING)
  if (options === undefined) return undefined
  const found = resolveClient(
    options.trustedProxies ?? NO_TRUSTED_PROXIES,
    options.peerAddress?.(c),
    { forwardedFor: header(c, "x-forwarded-for"), forwardedProto: header(c, "x-forwarded-proto") },
    new URL(c.req.url).protocol === "https:",
  )
  resolved.set(c, found)
  return found
}

/** The client's address, for per-client rate limits and the audit log. */
export const clientAddress = (c: Context): string | undefined => resolve(c)?.address

/** Whether the client reached us over https, directly or through a trusted proxy. */
export const isHttps = (c: Context): boolean => resolve(c)?.https === true
