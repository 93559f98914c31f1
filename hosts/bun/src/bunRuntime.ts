/**
 * The few parts of Bun's API this host uses, declared structurally (the way Kysely declares its drivers) so that
 * the repository type-checks under Node's types alone: `bun-types` would redeclare globals for every package.
 * `bunRuntime()` is the one place that reaches for `globalThis.Bun`.
 */

/** `server.requestIP(request)`: the peer of the request's connection, or null when it is gone. */
export interface SocketAddress {
  readonly address: string
  readonly port: number
  readonly family: "IPv4" | "IPv6"
}

/** What `Bun.serve` returns, as far as this host uses it. */
export interface BunServer {
  /** The port actually bound (the free one chosen when asked for `0`). */
  readonly port: number
  readonly requestIP: (request: Request) => SocketAddress | null
  /**
   * Sets how long this request's connection may go without sending or receiving a byte before Bun closes it,
   * in seconds (`0`: never). The server-wide default, `idleTimeout`, is 10 s.
   */
  readonly timeout: (request: Request, seconds: number) => void
  /**
   * Stops accepting. Without `closeActiveConnections` it resolves once requests in flight have been answered
   * (idle keep-alive connections are closed at once); with it, every connection is cut.
   */
  readonly stop: (closeActiveConnections?: boolean) => Promise<void>
}

export interface ServeOptions {
  readonly hostname: string
  readonly port: number
  /** Off, so that an exception never answers with Bun's HTML error page. */
  readonly development: boolean
  /**
   * Bun sets SO_REUSEPORT unless told not to, and a second server on a taken port would then start and share
   * its connections instead of failing with EADDRINUSE, as Node's does.
   */
  readonly reusePort: boolean
  /** Bun passes the server beside the request; the host forwards it to Hono as `env`. */
  readonly fetch: (request: Request, server: BunServer) => Response | Promise<Response>
}

export interface BunRuntime {
  readonly version: string
  /** Binds at once; throws (`EADDRINUSE`, …) when it cannot. */
  readonly serve: (options: ServeOptions) => BunServer
}

/** Bun's global, or a clear error when this code runs anywhere else. */
export const bunRuntime = (): BunRuntime => {
  const bun = (globalThis as { Bun?: BunRuntime }).Bun
  if (bun === undefined) throw new Error("@coffer/bun runs on Bun; on Node use @coffer/node (`coffer`)")
  return bun
}
