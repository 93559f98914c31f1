/**
 * A TCP proxy for outage tests. It stands between a client and a real server (Redis, Postgres) and can cut the
 * link or stall it, then restore it, so a test can show an adapter failing fast during an outage and healing by
 * itself afterwards, with no restart of the server or rebuild of the layer under test.
 */
import { connect, createServer, type Socket } from "node:net"

export interface TcpProxy {
  /** Where clients connect instead of the target. */
  readonly host: string
  readonly port: number
  /** Drops every live connection and refuses new ones (reset at once) until `restore`, as a crashed server would. */
  readonly cut: () => void
  /**
   * Keeps connections open but lets nothing through, as a hung server or a lost route would; what was sent is held
   * back, and delivered on `restore` unless the connection closes first.
   */
  readonly stall: () => void
  /** Lets connections through again. */
  readonly restore: () => void
  /** Stops listening and drops every connection. */
  readonly close: () => Promise<void>
}

type Mode = "open" | "stalled" | "cut"

/** Starts a proxy to `target` on a free port of 127.0.0.1. */
export const startTcpProxy = async (target: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  let mode: Mode = "open"
  const sockets = new Set<Socket>()
  // Data that arrived while stalled, per destination, in order.
  const held = new Map<Socket, Array<Buffer>>()

  const forward = (from: Socket, to: Socket) => {
    from.on("data", (chunk: Buffer) => {
      if (mode === "open") to.write(chunk)
      else held.get(to)?.push(chunk)
    })
  }

  const track = (socket: Socket) => {
    sockets.add(socket)
    held.set(socket, [])
    socket.once("close", () => {
      sockets.delete(socket)
      held.delete(socket)
    })
  }

  const server = createServer((client) => {
    if (mode === "cut") return void client.resetAndDestroy()
    const upstream = connect({ host: target.host, port: target.port })
    track(client)
    track(upstream)
    forward(client, upstream)
    forward(upstream, client)
    // Either side going away takes the other with it, as a real connection would.
    const drop = () => {
      client.destroy()
      upstream.destroy()
    }
    client.once("close", drop)
    upstream.once("close", drop)
    client.on("error", drop)
    upstream.on("error", drop)
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("tcpProxy: no TCP address")

  return {
    host: "127.0.0.1",
    port: address.port,
    // The listener stays up and resets newcomers, so the port cannot be taken meanwhile by another socket.
    cut: () => {
      mode = "cut"
      for (const socket of sockets) socket.resetAndDestroy()
    },
    stall: () => {
      mode = "stalled"
    },
    restore: () => {
      mode = "open"
      for (const [socket, chunks] of held) {
        for (const chunk of chunks.splice(0)) if (!socket.destroyed) socket.write(chunk)
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A proxy in front of the server a connection URL names, and the same URL through it (credentials, path kept). */
export const startProxyFor = async (
  url: string,
  defaultPort: number,
): Promise<{ readonly proxy: TcpProxy; readonly url: string }> => {
  const target = new URL(url)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || defaultPort) })
  const through = new URL(url)
  through.hostname = proxy.host
  through.port = String(proxy.port)
  return { proxy, url: through.toString() }
}
