/**
 * Binding a fetch handler to a port with Node's HTTP server, and closing it gracefully: requests in flight
 * finish, idle keep-alive connections are dropped at once, and anything still open after a grace period is
 * cut so that a stuck client cannot hold the process forever.
 */

import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createAdaptorServer } from "@hono/node-server"

export interface Listening {
  readonly port: number
  readonly url: string
  readonly close: (graceMs?: number) => Promise<void>
}

export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>

export const listen = (fetch: FetchHandler, host: string, port: number): Promise<Listening> =>
  new Promise((resolve, reject) => {
    const server = createAdaptorServer({ fetch, hostname: host }) as Server
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      const { port: bound } = server.address() as AddressInfo
      const shown = host.includes(":") ? `[${host}]` : host
      resolve({
        port: bound,
        url: `http://${shown}:${bound}`,
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
