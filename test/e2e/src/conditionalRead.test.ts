/**
 * A CI job polling a schema with `If-None-Match`, against the built host as it runs by default (no CORS): the 304
 * carries the tag and the headers every answer carries, no content and no `Content-Length`; the connection stays
 * usable, so the next answer on it is read whole. Spoken over a raw socket, so that
 * nothing between the test and the host forgives a wrongly framed answer.
 */
import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "./host.js"

interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/** Reads answers from one keep-alive connection, each framed by its status and `Content-Length` alone. */
const reader = (socket: Socket) => {
  let buffered = Buffer.alloc(0)
  const waiting: Array<() => void> = []
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    for (const wake of waiting.splice(0)) wake()
  })
  const more = () => new Promise<void>((resolve) => waiting.push(resolve))
  return async (): Promise<RawAnswer> => {
    let end = buffered.indexOf("\r\n\r\n")
    while (end < 0) {
      await more()
      end = buffered.indexOf("\r\n\r\n")
    }
    const [statusLine, ...lines] = buffered.subarray(0, end).toString("latin1").split("\r\n")
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
    )
    const status = Number(statusLine!.split(" ")[1])
    // RFC 9112 §6.3: a 304 ends at its header section, whatever its headers say.
    const length = status === 304 ? 0 : Number(headers["content-length"] ?? 0)
    while (buffered.length < end + 4 + length) await more()
    const body = buffered.subarray(end + 4, end + 4 + length).toString("utf8")
    buffered = buffered.subarray(end + 4 + length)
    return { status, headers, body }
  }
}

const json = async (response: Response) => {
  const text = await response.text()
  if (!response.ok) throw new Error(`${response.status}: ${text}`)
  return JSON.parse(text)
}

describe("a conditional schema read on the built host", () => {
  let host: Host
  let base: string
  let token: string

  beforeAll(async () => {
    host = await start({ args: ["serve", "--only", "schemas"], env: { OIDC_ADMIN_GROUP: "admins" } })
    base = host.schemas!
    const login = await fetch(`${base}/api/auth/dev-login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "root@example.com", groups: ["admins"] }),
    })
    const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!
    const call = (method: string, path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(json)
    await call("POST", "/api/ios", { name: "ios", versions: ["1.0.0"] })
    await call("PUT", "/api/ios/1.0.0", { content: { feature: { enabled: true, note: "é" } } })
    ;({ token } = await call("POST", "/api/_ui/v1/tokens", { name: "ci" }))
  })

  afterAll(() => host?.stop())

  it("answers 304 without content, then the full answer on the same connection", async () => {
    const full = await fetch(`${base}/api/ios/1.0.0`, { headers: { authorization: `Bearer ${token}` } })
    const bytes = Buffer.from(await full.arrayBuffer())
    const etag = full.headers.get("etag")!
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)

    const { hostname, port } = new URL(base)
    const socket = connect({ host: hostname, port: Number(port) })
    const next = reader(socket)
    const get = (extra: string) =>
      socket.write(
        `GET /api/ios/1.0.0 HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n${extra}\r\n`,
      )
    try {
      get(`If-None-Match: ${etag}\r\n`)
      const polled = await next()
      expect(polled.status).toBe(304)
      expect(polled.headers.etag).toBe(etag)
      expect(polled.headers["cache-control"]).toBe("no-store")
      expect(polled.headers["x-content-type-options"]).toBe("nosniff")
      expect(polled.headers["x-request-id"]).toBeDefined()
      // RFC 9110 §8.6 allows the length a 200 would carry; a client that frames by `Content-Length` alone
      // (autocannon's parser does) would then wait for that many bytes, so none is sent.
      expect(polled.headers["content-length"]).toBeUndefined()
      expect(polled.headers["transfer-encoding"]).toBeUndefined()

      get("")
      const read = await next()
      expect(read.status).toBe(200)
      expect(Buffer.from(read.body)).toEqual(bytes)
      expect(read.headers.etag).toBe(etag)

      // A tag that no longer names the bytes is answered in full.
      get(`If-None-Match: "${"0".repeat(32)}"\r\n`)
      expect((await next()).status).toBe(200)
    } finally {
      socket.destroy()
    }
  })
})
