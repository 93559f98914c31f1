/**
 * The Node listener over a real socket: answers with a body are written by @hono/node-server from their record;
 * bodiless preset answers (a schema poll's 304) by the host itself (`writingBodiless`), with every header and
 * nothing that would frame a body, on a connection that stays usable.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
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
