/**
 * The Bun listener: the same fetch handler on `Bun.serve`, with the Node listener's shutdown semantics. `stop()`
 * stops accepting, closes idle keep-alive connections and resolves once requests in flight are answered;
 * whatever is still open after the grace period is cut with `stop(true)`.
 */
import {
  type FetchHandler,
  type Listener,
  type Listening,
  type ListenOptions,
  listeningUrl,
  malformedResponse,
  UNUSABLE_URL,
} from "@coffer/node"
import type { Context } from "hono"
import { withBodyDeadline } from "./bodyDeadline.js"
import { type BunServer, bunRuntime } from "./bunRuntime.js"

/**
 * What Hono receives as `env` on Bun: the server and the request exactly as Bun handed it over, because
 * `requestIP` knows only that object (a middleware may swap `c.req.raw` for a copy).
 */
export interface BunBindings {
  readonly server: BunServer
  readonly request: Request
}

/**
 * How long a request may go without a byte either way, in seconds. Bun's default of 10 s also counts the time a
 * handler works before answering, so a long cascade or a wait for a database connection would end in a reset
 * connection instead of a response; Node never cuts a handler. 255 s is the most Bun's `idleTimeout` takes.
 * The timeout stays on the connection while it is kept alive after the answer (measured: a connection idle after
 * a request that set 255 s is still open after 16 s), so idle keep-alive connections last that long, not Bun's 10 s.
 * A body's own bound is the request timeout (`./bodyDeadline.ts`).
 */
export const REQUEST_IDLE_TIMEOUT_S = 255

const isBunBindings = (env: unknown): env is BunBindings =>
  typeof env === "object" && env !== null && "server" in env && "request" in env

export const listen = async (
  fetch: FetchHandler,
  host: string,
  port: number,
  { requestTimeoutMs }: ListenOptions = {},
): Promise<Listening> => {
  // `async`: Bun.serve throws at once when it cannot bind (EADDRINUSE, EACCES); that becomes the rejection.
  const server = bunRuntime().serve({
    hostname: host,
    port,
    development: false,
    reusePort: false,
    fetch: (request, server) => {
      // Bun makes the URL from the Host header without checking it: `[::zz` or `a:99999` give a string no URL
      // parser takes (the apps' `new URL` threw, a 500), `a/b` or an empty Host a bare path, which Hono then
      // routed by the wrong part (an API path answered the web app). Node's server refuses both with 400.
      if (!URL.canParse(request.url)) return malformedResponse(400, UNUSABLE_URL)
      server.timeout(request, REQUEST_IDLE_TIMEOUT_S)
      const bindings: BunBindings = { server, request }
      return request.body === null || requestTimeoutMs === undefined
        ? fetch(request, bindings)
        : withBodyDeadline(request, requestTimeoutMs, (timed) => fetch(timed, bindings))
    },
  })
  return {
    port: server.port,
    url: listeningUrl(host, server.port),
    close: async (graceMs = 10_000) => {
      const force = setTimeout(() => void server.stop(true), graceMs)
      force.unref()
      try {
        await server.stop()
      } finally {
        clearTimeout(force)
      }
    },
  }
}

/** The peer address of the request's connection; proxies are not trusted for it. */
const clientAddress = (c: Context): string | undefined =>
  isBunBindings(c.env) ? (c.env.server.requestIP(c.env.request)?.address ?? undefined) : undefined

/** `Bun.serve` behind the host's Listener seam; pass it to `@coffer/node`'s `main` or `serve`. */
export const bunListener: Listener = { listen, clientAddress }
