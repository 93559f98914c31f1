/**
 * Node's own request, where there is one. @hono/node-server passes the `IncomingMessage` it answers in the
 * bindings (`c.env.incoming`); reading headers and the body from it spares building the web `Request` that Hono's
 * `c.req` would otherwise make of it (issue 10). Bun and other runtimes hand Hono a real `Request` and have none.
 */
import type { Context } from "hono"

/** The part of Node's `IncomingMessage` read here. */
export interface Incoming {
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** Whether anything has read the body yet (a middleware that buffered it through the web `Request`, say). */
  readonly readableDidRead: boolean
  /** Whether the request is over without its body read (the client went away). */
  readonly destroyed: boolean
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown
  on(event: "end" | "close", listener: () => void): unknown
  on(event: "error", listener: (error: Error) => void): unknown
}

/** The `IncomingMessage` behind `c`, on Node only. */
export const incoming = (c: Context): Incoming | undefined =>
  (c.env as { readonly incoming?: Incoming } | undefined)?.incoming
