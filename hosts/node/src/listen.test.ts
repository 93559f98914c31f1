/**
 * The Node listener over a real socket: answers with a body are written by @hono/node-server from their record;
 * bodiless preset answers (a schema poll's 304) by the host itself (`writingBodiless`), with every header and
 * nothing that would frame a body, on a connection that stays usable.
 */
import { createServer, type Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { createPlatforms, saveSchema, useSchemasServices } from "@coffer/test-kit/schemasService"
import { getRequestListener } from "@hono/node-server"
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response"
import { afterEach, describe, expect, it } from "vitest"
import { type FetchHandler, type Listening, listen, writingBodiless } from "./listen.js"

const service = useSchemasServices()
const closing: Array<() => Promise<unknown>> = []
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()))
})

/** A schemas app holding one schema, and a token that reads it. */
const schemaApp = async () => {
  const { app, person, withToken } = service({ OIDC_ADMIN_GROUP: "admins" })
  const ada = await person("ada@example.com", ["admins"])
  await createPlatforms(ada, { base: ["1.0.0"] })
  await saveSchema(ada, "base/1.0.0", { theme: { color: "red" } })
  const { token } = await withToken(ada)
  const fetch: FetchHandler = (request, env) => app.fetch(request, env)
  return { fetch, authorization: `Bearer ${token}` }
}

describe("listen", () => {
  it("answers a poll 304 with the read's headers and no framing, then the full read on that connection", async () => {
    const { fetch: handler, authorization } = await schemaApp()
    const listening: Listening = await listen(handler, "127.0.0.1", 0)
    closing.push(() => listening.close(0))
    const url = `${listening.url}/api/base/1.0.0`

    const read = await fetch(url, { headers: { authorization } })
    expect(read.status).toBe(200)
    expect(await read.json()).toMatchObject({ output: { theme: { color: "red" } } })
    const etag = read.headers.get("etag")!

    const polled = await fetch(url, { headers: { authorization, "if-none-match": etag, "x-request-id": "poll-1" } })
    expect(polled.status).toBe(304)
    expect(await polled.text()).toBe("")
    expect(polled.headers.get("etag")).toBe(etag)
    expect(polled.headers.get("x-request-id")).toBe("poll-1")
    expect(polled.headers.get("cache-control")).toBe("no-store")
    expect(polled.headers.get("x-content-type-options")).toBe("nosniff")
    expect(polled.headers.get("content-length")).toBeNull()
    expect(polled.headers.get("transfer-encoding")).toBeNull()

    const again = await fetch(url, { headers: { authorization } })
    expect(again.status).toBe(200)
    expect(await again.json()).toMatchObject({ output: { theme: { color: "red" } } })
  })
})

/** Sends `bytes` on a fresh connection and resolves with everything the server wrote before it closed. */
const exchange = (port: number, bytes: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let answer = ""
    socket.on("data", (chunk) => {
      answer += chunk
    })
    socket.on("close", () => resolve(answer))
    socket.on("error", reject)
    socket.write(bytes)
  })

/**
 * `answer` is `status` with the apps' JSON error, no-store, the security headers and a request id of its own, and
 * closes the connection.
 */
const expectJsonRefusal = (answer: string, status: number, message: string) => {
  const [head, body] = answer.split("\r\n\r\n")
  expect(head!.split("\r\n")[0]).toMatch(new RegExp(`^HTTP/1.1 ${status} `))
  expect(head).toMatch(/^content-type: application\/json$/im)
  expect(head).toMatch(/^cache-control: no-store$/im)
  expect(head).toMatch(/^x-content-type-options: nosniff$/im)
  expect(head).toMatch(/^x-request-id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/im)
  expect(head).toMatch(/^connection: close$/im)
  expect(JSON.parse(body!)).toEqual({ error: message })
}

describe("requests Node's parser refuses", () => {
  it("are answered with the apps' JSON error and no-store, then the connection closes", async () => {
    const listening = await listen(() => new Response("never reached"), "127.0.0.1", 0)
    closing.push(() => listening.close(0))
    const port = Number(new URL(listening.url).port)
    for (const [bytes, status, message] of [
      ["GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", 400, "The request is not valid HTTP"],
      ["GET / HTTP/1.1\r\nBad Header: y\r\n\r\n", 400, "The request is not valid HTTP"],
      ["FOO / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "The request is not valid HTTP"],
      [
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
        "The request is not valid HTTP",
      ],
      [
        `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`,
        431,
        "The request's headers are larger than the server accepts",
      ],
    ] as const) {
      expectJsonRefusal(await exchange(port, bytes), status, message)
    }
  })
})

describe("requests Node would refuse with an empty body", () => {
  it("without a Host header on HTTP/1.1, or with an Expect it cannot meet, get the apps' JSON error", async () => {
    const listening = await listen(() => new Response("reached"), "127.0.0.1", 0)
    closing.push(() => listening.close(0))
    const port = Number(new URL(listening.url).port)
    for (const [bytes, status, message] of [
      ["GET / HTTP/1.1\r\n\r\n", 400, "An HTTP/1.1 request must carry a Host header"],
      [
        "GET / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n",
        417,
        "The only expectation the server meets is `Expect: 100-continue`",
      ],
    ] as const) {
      expectJsonRefusal(await exchange(port, bytes), status, message)
    }
    // HTTP/1.0 has no Host requirement, and a request with Host reaches the apps.
    expect(await exchange(port, "GET / HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1.1 200 [\s\S]*\r\n\r\nreached$/)
    expect(await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).toMatch(/reached$/)
  })
})

describe("a client that sends slowly", () => {
  it("has the request timeout for its headers and body, answered 408; a handler's own time is not counted", async () => {
    const slowHandlerMs = 1_500
    const handler: FetchHandler = async (request) => {
      if (new URL(request.url).pathname === "/slow") {
        await new Promise((resolve) => setTimeout(resolve, slowHandlerMs))
        return new Response("answered")
      }
      return new Response(await request.text().catch(() => "cut"))
    }
    const listening = await listen(handler, "127.0.0.1", 0, { requestTimeoutMs: 500 })
    closing.push(() => listening.close(0))
    const port = Number(new URL(listening.url).port)
    const late = "The request was not received in time"

    // Node's own default would keep each of these open for five minutes, past the test's own timeout.
    expectJsonRefusal(await exchange(port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"), 408, late)
    expectJsonRefusal(await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nX-Partial: y"), 408, late)
    expect(await exchange(port, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).toMatch(
      /^HTTP\/1.1 200 [\s\S]*\r\n\r\nanswered$/,
    )
    expect(
      await exchange(port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"),
    ).toMatch(/\r\n\r\nabc$/)
  })
})

describe("writingBodiless", () => {
  it("writes a preset 304 itself and hands every other answer to @hono/node-server", async () => {
    const { fetch: handler, authorization } = await schemaApp()
    const handed: Array<Response> = []
    const writing = writingBodiless(handler)
    const server: Server = createServer(
      getRequestListener((request, env) => {
        const answer = writing(request, env)
        void Promise.resolve(answer).then((settled) => handed.push(settled))
        return answer
      }),
    )
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    closing.push(() => new Promise((resolve) => server.close(resolve)))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/base/1.0.0`

    const read = await fetch(url, { headers: { authorization } })
    const etag = read.headers.get("etag")!
    await read.arrayBuffer()
    const polled = await fetch(url, { headers: { authorization, "if-none-match": etag } })
    expect(polled.status).toBe(304)
    expect(polled.headers.get("etag")).toBe(etag)
    const refused = await fetch(url, { headers: { authorization: "Bearer cfs_unknown", "if-none-match": etag } })
    expect(refused.status).toBe(401)
    await refused.arrayBuffer()

    expect(handed).toHaveLength(3)
    expect(handed[0]).not.toBe(RESPONSE_ALREADY_SENT)
    expect(handed[0]!.status).toBe(200)
    expect(handed[1]).toBe(RESPONSE_ALREADY_SENT)
    expect(handed[2]).not.toBe(RESPONSE_ALREADY_SENT)
  })
})

describe("closing", () => {
  it("lets an answer whose body is still being written finish, however long its client takes to read it", async () => {
    // Node counts an answer done once `end` is called, while its bytes may still wait in the socket for a slow
    // reader: the idle-connection sweeps of a shutdown cut such a connection, and the client got part of the body.
    const body = "x".repeat(16 * 1024 * 1024)
    const listening = await listen(() => new Response(body), "127.0.0.1", 0)
    const port = Number(new URL(listening.url).port)
    const socket = connect(port, "127.0.0.1")
    let received = 0
    const ended = new Promise<void>((resolve) => socket.on("close", () => resolve()))
    const started = new Promise<void>((resolve) => socket.once("data", () => resolve()))
    socket.on("data", (chunk) => {
      received += chunk.length
    })
    socket.on("error", () => undefined)
    socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    await started
    socket.pause()
    const closed = listening.close(5_000)
    await new Promise((resolve) => setTimeout(resolve, 300))
    socket.resume()
    await ended
    await closed
    expect(received).toBeGreaterThan(body.length)
  })
})
