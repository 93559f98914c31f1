/**
 * Binding a fetch handler to a port, behind the small `Listener` seam that lets another runtime (Bun) serve the
 * same apps. The Node listener uses Node's HTTP server, writes the answers made in one event-loop turn together
 * (`./coalescedResponse.ts`), and closes it gracefully: requests in flight finish, idle keep-alive connections are
 * dropped at once, and anything still open after a grace period is cut so that a stuck client cannot hold the
 * process forever.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import type { Duplex } from "node:stream"
import { INTERNAL_ERROR_MESSAGE, presetHead } from "@coffer/http"
import { getRequestListener, type HttpBindings } from "@hono/node-server"
import { getConnInfo } from "@hono/node-server/conninfo"
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response"
import type { Context } from "hono"
import { CoalescedResponse } from "./coalescedResponse.js"
import { malformedHeaders, malformedResponse, NOT_RECEIVED_IN_TIME, UNUSABLE_URL } from "./malformed.js"

export interface Listening {
  readonly port: number
  readonly url: string
  /**
   * Stops accepting, lets requests in flight finish, and resolves once every connection is gone. Connections
   * still open after `graceMs` (10 s by default) are cut.
   */
  readonly close: (graceMs?: number) => Promise<void>
}

/**
 * The handler a listener calls. `env` is whatever the server passes beside the request (Node's
 * `{ incoming, outgoing }`, Bun's server); it must reach `Hono#fetch` so that `clientAddress` can read it.
 */
export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>

/** How the server treats its clients, from the host's settings. */
export interface ListenOptions {
  /**
   * How long a client has to send a whole request, headers and body (`COFFER_REQUEST_TIMEOUT_SECONDS`); a request
   * still arriving then is answered 408 and its connection closed. The handler's own time is not counted.
   */
  readonly requestTimeoutMs?: number
}

/** What a host needs from an HTTP server: the only runtime-specific part of serving the apps. */
export interface Listener {
  /** Binds `fetch` to `host:port` (`0` picks a free port, reported in `Listening`); rejects when it cannot. */
  readonly listen: (fetch: FetchHandler, host: string, port: number, options?: ListenOptions) => Promise<Listening>
  /**
   * The peer address of the request's connection. Whether a peer is a proxy to believe is decided by the apps
   * (`COFFER_TRUSTED_PROXIES`, `@coffer/http`'s `client`), never here.
   */
  readonly clientAddress: (c: Context) => string | undefined
}

/** `http://host:port`, with an IPv6 host in brackets. */
export const listeningUrl = (host: string, port: number): string =>
  `http://${host.includes(":") ? `[${host}]` : host}:${port}`

/**
 * `fetch`, with its bodiless preset answers (`presetHead`: a 304 to a schema poll) written straight to Node's
 * response. @hono/node-server writes an answer with a body from its plain record, but builds a web `Response` and
 * its `Headers` for one without, which made a CI job's `If-None-Match` poll cost more than the full read (issue 10).
 */
export const writingBodiless = (fetch: FetchHandler): FetchHandler => {
  const written = (answer: Response, env: unknown): Response => {
    const head = presetHead(answer)
    const outgoing = (env as Partial<HttpBindings> | undefined)?.outgoing
    if (head === undefined || outgoing === undefined) return answer
    outgoing.writeHead(head.status, head.headers)
    outgoing.end()
    return RESPONSE_ALREADY_SENT
  }
  return (request, env) => {
    const answer = fetch(request, env)
    return answer instanceof Promise ? answer.then((settled) => written(settled, env)) : written(answer, env)
  }
}

/**
 * What @hono/node-server answers when `fetch` cannot run: a request it could not make a URL of (a Host header such
 * as `a/b` or `[::zz`, a backslash in the path) with 400, which it would answer with an empty body; anything else,
 * which the apps never let escape, with the anonymous 500.
 */
const unfetchable = (error: unknown): Response =>
  error instanceof Error && error.name === "RequestError"
    ? malformedResponse(400, UNUSABLE_URL)
    : malformedResponse(500, INTERNAL_ERROR_MESSAGE)

/** What Node's parser errors are answered with; any other code is a request that is not HTTP at all. */
const PARSER_REFUSALS: Readonly<Record<string, readonly [number, string]>> = {
  HPE_HEADER_OVERFLOW: [431, "The request's headers are larger than the server accepts"],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, "The request's chunk extensions are larger than the server accepts"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, NOT_RECEIVED_IN_TIME],
}
const NOT_HTTP = [400, "The request is not valid HTTP"] as const

/**
 * Node's own answer to a request its parser refuses (a malformed request line or header, headers over its limit,
 * a body framed two ways), with the apps' JSON error body instead of an empty one; the connection is then closed,
 * as Node does, since nothing after the bad bytes can be trusted. Like Node, nothing is written where an answer
 * has begun on the connection: that would corrupt it.
 */
const refuseUnparsable = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  // The response in flight on the connection, as Node's default handler checks it.
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (socket.writable && inFlight?.headersSent !== true) {
    const [status, message] = PARSER_REFUSALS[error.code ?? ""] ?? NOT_HTTP
    const body = JSON.stringify({ error: message })
    const headers = [
      ...malformedHeaders(),
      ["Content-Length", String(Buffer.byteLength(body))],
      ["Connection", "close"],
    ]
    const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join("")
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`)
  }
  socket.destroy(error)
}

/** `status` with the apps' JSON error, written to Node's response; the connection closes after it. */
const refuse = (outgoing: ServerResponse, status: number, message: string): void => {
  const body = JSON.stringify({ error: message })
  outgoing.shouldKeepAlive = false
  outgoing.writeHead(status, [...malformedHeaders(), ["Content-Length", String(Buffer.byteLength(body))]].flat())
  outgoing.end(body)
}

const NO_HOST = "An HTTP/1.1 request must carry a Host header"
const UNMET_EXPECTATION = "The only expectation the server meets is `Expect: 100-continue`"

/** Node's own default: five minutes for a request that a client can trickle in a byte at a time. */
const NODE_REQUEST_TIMEOUT_MS = 300_000
/**
 * How often Node looks for requests past their time. Its default of 30 s would let a 30 s timeout run to a minute;
 * the look walks the open connections only.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000

/**
 * Node counts an answer done once its `end` is called, while its bytes may still wait in the socket for a slow
 * reader (a large export): closing idle connections, as a shutdown does every 50 ms (and `server.close` once), cut
 * such a connection and the client got part of the body. So that sweep waits while any connection still has bytes
 * to write, and is run again by the next one; the grace period still cuts everything in the end.
 */
const keepingAnswersBeingWritten = (server: Server<typeof IncomingMessage, typeof CoalescedResponse>) => {
  const connections = new Set<Socket>()
  server.on("connection", (socket: Socket) => {
    connections.add(socket)
    socket.once("close", () => connections.delete(socket))
  })
  const closeIdle = server.closeIdleConnections.bind(server)
  server.closeIdleConnections = () => {
    for (const socket of connections) if (socket.writableLength > 0) return
    closeIdle()
  }
}

export const listen = (
  fetch: FetchHandler,
  host: string,
  port: number,
  { requestTimeoutMs = NODE_REQUEST_TIMEOUT_MS }: ListenOptions = {},
): Promise<Listening> =>
  new Promise((resolve, reject) => {
    const handle = getRequestListener(writingBodiless(fetch), { hostname: host, errorHandler: unfetchable })
    // Node refuses an HTTP/1.1 request without Host (RFC 9112 §3.2) and an `Expect:` it cannot meet itself, with
    // an empty body; both are refused here instead, with the apps' JSON error like every other refusal.
    // The headers get the same time as the whole request: one bound for a client that sends slowly.
    const server = createServer<typeof IncomingMessage, typeof CoalescedResponse>(
      {
        ServerResponse: CoalescedResponse,
        requireHostHeader: false,
        requestTimeout: requestTimeoutMs,
        headersTimeout: requestTimeoutMs,
        connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, requestTimeoutMs),
      },
      (incoming, outgoing) =>
        incoming.headers.host === undefined && incoming.httpVersion === "1.1"
          ? refuse(outgoing, 400, NO_HOST)
          : outgoing.handle(() => handle(incoming, outgoing)),
    )
    keepingAnswersBeingWritten(server)
    server.on("checkExpectation", (_incoming, outgoing) => refuse(outgoing, 417, UNMET_EXPECTATION))
    server.on("clientError", refuseUnparsable)
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      const { port: bound } = server.address() as AddressInfo
      resolve({
        port: bound,
        url: listeningUrl(host, bound),
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), graceMs)
            // A connection that finishes its request while draining would otherwise wait out its keep-alive.
            const sweep = setInterval(() => server.closeIdleConnections(), 50)
            force.unref()
            sweep.unref()
            server.close(() => {
              clearTimeout(force)
              clearInterval(sweep)
              done()
            })
            server.closeIdleConnections()
          }),
      })
    })
  })

/** The socket's peer address, from the `{ incoming }` bindings @hono/node-server passes as `env`. */
const clientAddress = (c: Context): string | undefined => (c.env ? getConnInfo(c).remote.address : undefined)

/** The default listener: @hono/node-server on Node's HTTP server. */
export const nodeListener: Listener = { listen, clientAddress }
