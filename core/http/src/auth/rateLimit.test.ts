/**
 * The rate-limit middleware and per-attempt helper on plain routes, over the real in-memory cache: counts per
 * client and group, 429 with `Retry-After` before the route runs, off at 0, closed (503) when the cache is down.
 */

import { cacheDown } from "@coffer/test-kit/cache"
import { CLIENT_HEADER, clientAddress, memoryRuntime, settingsFrom } from "@coffer/test-kit/http"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { createBaseApp } from "../app/base.js"
import { limitAttempt, rateLimit } from "./rateLimit.js"

const runtimes: Array<ReturnType<typeof memoryRuntime>> = []
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.dispose()))
})

const appWith = (limit: number, options: Parameters<typeof memoryRuntime>[0] = {}) => {
  const runtime = memoryRuntime(options)
  runtimes.push(runtime)
  const { app, handle } = createBaseApp({ runtime, settings: settingsFrom(), publicOrigin: undefined })
  let ran = 0
  app.get("/limited", rateLimit(handle, { group: "limited", limit, clientAddress }), (c) => {
    ran++
    return c.json({ ok: true })
  })
  app.get("/also-limited", rateLimit(handle, { group: "other", limit, clientAddress }), (c) => c.json({ ok: true }))
  // Counts only the attempts that fail, as a credential check does.
  app.get("/check", (c) =>
    handle(
      c,
      Effect.gen(function* () {
        if (c.req.query("good") === "1") return { ok: true }
        yield* limitAttempt(c, { group: "check", limit, clientAddress })
        return { ok: false }
      }),
    ),
  )
  return { app, ran: () => ran }
}

const from = (path: string, client: string) =>
  new Request(`http://coffer.test${path}`, { headers: { [CLIENT_HEADER]: client } })

describe("rate limits at the HTTP edge", () => {
  it("answers 429 with Retry-After once a client has used its allowance, before the route runs", async () => {
    const { app, ran } = appWith(2)
    expect((await app.request(from("/limited", "a"))).status).toBe(200)
    expect((await app.request(from("/limited", "a"))).status).toBe(200)
    const limited = await app.request(from("/limited", "a"))
    expect(limited.status).toBe(429)
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/)
    expect(limited.headers.get("cache-control")).toBe("no-store")
    expect(ran()).toBe(2)
    // Other clients and other groups keep their own counts.
    expect((await app.request(from("/limited", "b"))).status).toBe(200)
    expect((await app.request(from("/also-limited", "a"))).status).toBe(200)
  })

  it("counts an IPv6 client by its /64, where a new address costs nothing, and an IPv4 one by its address", async () => {
    const { app } = appWith(2)
    expect((await app.request(from("/limited", "2001:db8:1:2::1"))).status).toBe(200)
    expect((await app.request(from("/limited", "2001:db8:1:2:ffff::9"))).status).toBe(200)
    expect((await app.request(from("/limited", "[2001:0db8:0001:0002:0:0:0:7]"))).status).toBe(429)
    expect((await app.request(from("/limited", "2001:db8:1:3::1"))).status).toBe(200)
    expect((await app.request(from("/limited", "192.0.2.1"))).status).toBe(200)
    expect((await app.request(from("/limited", "::ffff:192.0.2.1"))).status).toBe(200)
    expect((await app.request(from("/limited", "192.0.2.1"))).status).toBe(429)
    expect((await app.request(from("/limited", "192.0.2.2"))).status).toBe(200)
  })

  it("counts only the attempts a route chooses to count", async () => {
    const { app } = appWith(1)
    for (let i = 0; i < 5; i++) expect((await app.request(from("/check?good=1", "a"))).status).toBe(200)
    expect((await app.request(from("/check", "a"))).status).toBe(200)
    expect((await app.request(from("/check", "a"))).status).toBe(429)
  })

  it("is off at a limit of 0, even with the cache down", async () => {
    const { app } = appWith(0, { cache: cacheDown })
    for (let i = 0; i < 10; i++) expect((await app.request(from("/limited", "a"))).status).toBe(200)
  })

  it("fails closed with 503 when the cache cannot count", async () => {
    const { app, ran } = appWith(5, { cache: cacheDown })
    const response = await app.request(from("/limited", "a"))
    expect(response.status).toBe(503)
    expect(ran()).toBe(0)
  })
})
