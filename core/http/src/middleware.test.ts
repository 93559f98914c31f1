import { NotFound, TooManyRequests } from "@coffer/kernel"
import { settingsFrom } from "@coffer/test-kit/http"
import { makeTestRuntime } from "@coffer/test-kit/runtime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { afterEach, describe, expect, it } from "vitest"
import { createBaseApp } from "./app/base.js"
import { readJson } from "./middleware/jsonBody.js"
import { CONTENT_SECURITY_POLICY, STRICT_TRANSPORT_SECURITY } from "./middleware/securityHeaders.js"

const APP_ORIGIN = "https://app.example.com"

class Unmapped extends Schema.TaggedError<Unmapped>()("Unmapped", { message: Schema.String }) {}

/** A tiny app on the shared stack: an echo route through the JSON helper, and routes that go wrong. */
const makeApp = (env: Record<string, string> = {}, publicOrigin?: string) => {
  const fixture = makeTestRuntime()
  const { app, handle } = createBaseApp({
    runtime: fixture.runtime,
    settings: settingsFrom(env),
    publicOrigin,
    nonJsonWrites: ["/form"],
  })
  app.post("/echo", (c) => handle(c, readJson(c), (body) => c.json({ body })))
  app.post("/form", (c) => c.text("form ok"))
  app.post("/logout", (c) => c.json({ ok: true }))
  app.get("/defect", (c) => handle(c, Effect.die(new Error("kaboom: secret-internal-detail"))))
  app.get("/missing", (c) => handle(c, Effect.fail(new NotFound({ message: "Platform ios was not found" }))))
  app.get("/limited", (c) =>
    handle(c, Effect.fail(new TooManyRequests({ message: "Too many attempts", retryAfterSeconds: 30 }))),
  )
  app.get("/unmapped", (c) =>
    // @ts-expect-error an error without a row in the table is refused at compile time
    handle(c, Effect.fail(new Unmapped({ message: "internal detail" }))),
  )
  app.get("/throw", () => {
    throw new Error("thrown: secret-internal-detail")
  })
  disposals.push(() => fixture.runtime.dispose())
  return { app, ...fixture }
}

const disposals: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(disposals.splice(0).map((dispose) => dispose()))
})

const json = (body: string, headers: Record<string, string> = {}) => ({
  method: "POST",
  body,
  headers: { "Content-Type": "application/json", ...headers },
})

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

const expectSecurityHeaders = (response: Response) => {
  expect(response.headers.get("Cache-Control")).toBe("no-store")
  expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff")
  expect(response.headers.get("X-Frame-Options")).toBe("DENY")
  expect(response.headers.get("Referrer-Policy")).toBe("no-referrer")
  expect(response.headers.get("Content-Security-Policy")).toBe(CONTENT_SECURITY_POLICY)
}

describe("unknown paths", () => {
  it("answer 404 JSON with no-store and the security headers", async () => {
    const { app } = makeApp()
    for (const [path, method] of [
      ["/nope", "GET"],
      ["/api/anything", "DELETE"],
    ] as const) {
      const response = await app.request(path, { method })
      expect(response.status).toBe(404)
      expect(response.headers.get("Content-Type")).toMatch(/^application\/json/)
      expect(await response.json()).toEqual({ error: "Not found" })
      expectSecurityHeaders(response)
    }
  })

  it("answer 405 JSON naming the methods, with the same headers, where the path exists for other methods", async () => {
    const { app } = makeApp()
    const response = await app.request("/echo", { method: "GET" })
    expect(response.status).toBe(405)
    expect(response.headers.get("Allow")).toBe("POST, OPTIONS")
    expect(await response.json()).toEqual({ error: "This path does not answer GET; it answers POST, OPTIONS" })
    expectSecurityHeaders(response)
    // A middleware mounted on the path for every method (a rate limit) is no route of any method.
    const { app: other } = makeApp()
    other.use("/limited", async (_c, next) => next())
    other.get("/limited", (c) => c.json({ ok: true }))
    const limited = await other.request("/limited", { method: "DELETE" })
    expect(limited.status).toBe(405)
    expect(limited.headers.get("Allow")).toBe("GET, HEAD, OPTIONS")
  })
})

describe("security headers", () => {
  it("are on successes and on every kind of error", async () => {
    const { app } = makeApp()
    const responses = [
      await app.request("/echo", json("{}")),
      await app.request("/echo", json("{", {})),
      await app.request("/echo", { method: "POST", body: "x", headers: { "Content-Type": "text/plain" } }),
      await app.request("/echo", json("x".repeat(1024 * 1024 + 1), { "Content-Length": String(1024 * 1024 + 1) })),
      await app.request("/defect"),
      await app.request("/throw"),
    ]
    expect(responses.map((response) => response.status)).toEqual([200, 400, 415, 413, 500, 500])
    for (const response of responses) expectSecurityHeaders(response)
  })

  it("include HSTS only when the public origin is https", async () => {
    const https = await makeApp({}, "https://coffer.example.com").app.request("/nope")
    expect(https.headers.get("Strict-Transport-Security")).toBe(STRICT_TRANSPORT_SECURITY)
    const http = await makeApp({}, "http://localhost:8788").app.request("/nope")
    expect(http.headers.get("Strict-Transport-Security")).toBeNull()
    const unset = await makeApp().app.request("/nope")
    expect(unset.headers.get("Strict-Transport-Security")).toBeNull()
  })
})

describe("CORS", () => {
  const cors = { CORS_ORIGIN: `${APP_ORIGIN}, http://localhost:5173` }

  it("allows a listed origin, with credentials", async () => {
    const response = await makeApp(cors).app.request("/echo", json("{}", { Origin: APP_ORIGIN }))
    expect(response.status).toBe(200)
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(APP_ORIGIN)
    expect(response.headers.get("Access-Control-Allow-Credentials")).toBe("true")
    expect(response.headers.get("Vary")).toContain("Origin")
  })

  it("lets a listed origin read errors too", async () => {
    const response = await makeApp(cors).app.request("/nope", { headers: { Origin: "http://localhost:5173" } })
    expect(response.status).toBe(404)
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost:5173")
  })

  it("gives another origin no allow header", async () => {
    const response = await makeApp(cors).app.request("/echo", json("{}", { Origin: "https://evil.example.com" }))
    expect(response.headers.get("Access-Control-Allow-Origin")).toBeNull()
    expect(response.headers.get("Access-Control-Allow-Credentials")).toBeNull()
  })

  it("is off without CORS_ORIGIN", async () => {
    const response = await makeApp().app.request("/echo", json("{}", { Origin: APP_ORIGIN }))
    expect(response.status).toBe(200)
    expect(response.headers.get("Access-Control-Allow-Origin")).toBeNull()
    // The preflight is told what the path answers (RFC 9110 OPTIONS), and nothing that lets the browser go on.
    const preflight = await makeApp().app.request("/echo", {
      method: "OPTIONS",
      headers: { Origin: APP_ORIGIN, "Access-Control-Request-Method": "POST" },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("Allow")).toBe("POST, OPTIONS")
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBeNull()
    expect(preflight.headers.get("Access-Control-Allow-Methods")).toBeNull()
  })

  it("answers a preflight from a listed origin, with the usual headers", async () => {
    const response = await makeApp(cors).app.request("/echo", {
      method: "OPTIONS",
      headers: {
        Origin: APP_ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(APP_ORIGIN)
    expect(response.headers.get("Access-Control-Allow-Credentials")).toBe("true")
    expect(response.headers.get("Access-Control-Allow-Methods")).toContain("POST")
    expect(response.headers.get("Access-Control-Allow-Headers")).toContain("Content-Type")
    // A dashboard on another origin may name the person its page is for, as the web apps do (`auth/session.ts`).
    expect(response.headers.get("Access-Control-Allow-Headers")).toContain("Coffer-Expected-User")
    // A schema poll's conditional read (ETag / If-None-Match) works from a listed origin too.
    expect(response.headers.get("Access-Control-Allow-Headers")).toContain("If-None-Match")
    expectSecurityHeaders(response)
  })

  it("does not allow a preflight from another origin: 204 with Allow, and no Access-Control-Allow-Origin", async () => {
    const response = await makeApp(cors).app.request("/echo", {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example.com", "Access-Control-Request-Method": "POST" },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get("Allow")).toBe("POST, OPTIONS")
    expect(response.headers.get("Access-Control-Allow-Origin")).toBeNull()
    expect(response.headers.get("Access-Control-Allow-Credentials")).toBeNull()
    expect(response.headers.get("Access-Control-Allow-Methods")).toBeNull()
    // A path no route takes stays 404, preflight or not.
    const nowhere = await makeApp(cors).app.request("/nowhere", {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example.com", "Access-Control-Request-Method": "POST" },
    })
    expect(nowhere.status).toBe(404)
  })
})

describe("body limit", () => {
  const tooLarge = { error: "Request body is larger than 1 MiB" }

  it("rejects a declared Content-Length over 1 MiB before reading", async () => {
    const response = await makeApp().app.request("/echo", json("{}", { "Content-Length": String(1024 * 1024 + 1) }))
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual(tooLarge)
  })

  it("cuts off a chunked body once it passes 1 MiB", async () => {
    let sent = 0
    const chunk = new Uint8Array(64 * 1024).fill(0x20)
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // An endless body: the limit must stop the reading, or this test times out.
        sent += chunk.length
        controller.enqueue(chunk)
      },
    })
    const response = await makeApp().app.request("/echo", {
      method: "POST",
      body,
      headers: { "Content-Type": "application/json" },
      duplex: "half",
    } as RequestInit)
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual(tooLarge)
    expect(sent).toBeLessThan(2 * 1024 * 1024)
  })

  it("answers a chunked body cut off by the client with 400, not a logged 500", async () => {
    const { app, logs } = makeApp()
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":'))
        // What the runtime reports when the client's connection closes before the last chunk.
        controller.error(new Error("aborted"))
      },
    })
    const response = await app.request("/echo", {
      method: "POST",
      body,
      headers: { "Content-Type": "application/json" },
      duplex: "half",
    } as RequestInit)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: "Could not read the request body" })
    expect(logs.filter((entry) => entry.level === "Error")).toEqual([])
  })

  it("lets a chunked body under the limit through", async () => {
    const text = JSON.stringify({ padding: "x".repeat(512 * 1024) })
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text)
        for (let i = 0; i < bytes.length; i += 10_000) controller.enqueue(bytes.slice(i, i + 10_000))
        controller.close()
      },
    })
    const response = await makeApp().app.request("/echo", {
      method: "POST",
      body,
      headers: { "Content-Type": "application/json" },
      duplex: "half",
    } as RequestInit)
    expect(response.status).toBe(200)
    expect(((await response.json()) as { body: { padding: string } }).body.padding).toHaveLength(512 * 1024)
  })
})

describe("JSON bodies", () => {
  it("are parsed and handed to the route", async () => {
    const response = await makeApp().app.request("/echo", json('{"a":[1,{"b":"]]]"}]}'))
    expect(await response.json()).toEqual({ body: { a: [1, { b: "]]]" }] } })
  })

  it.each([
    ["malformed JSON", "{", "Malformed JSON body"],
    ["trailing garbage", '{"a":1} x', "Malformed JSON body"],
    ["an empty body", "", "Request body must be a JSON document"],
    ["nesting 101 deep", nested(101), "JSON is nested deeper than 100 levels"],
    ["objects nesting 101 deep", `${'{"a":'.repeat(101)}1${"}".repeat(101)}`, "JSON is nested deeper than 100 levels"],
  ])("reject %s with 400", async (_, body, error) => {
    const response = await makeApp().app.request("/echo", json(body))
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error })
  })

  it("accept nesting exactly 100 deep, and brackets inside strings do not count", async () => {
    expect((await makeApp().app.request("/echo", json(nested(100)))).status).toBe(200)
    const brackets = JSON.stringify({ s: "[".repeat(500), t: 'say \\"[[[' })
    expect((await makeApp().app.request("/echo", json(brackets))).status).toBe(200)
  })

  it("reject invalid UTF-8 with 400", async () => {
    const response = await makeApp().app.request("/echo", {
      method: "POST",
      body: new Uint8Array([0x22, 0xff, 0x22]),
      headers: { "Content-Type": "application/json" },
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: "Request body is not valid UTF-8" })
  })

  it("accept a charset parameter on the content type", async () => {
    const response = await makeApp().app.request(
      "/echo",
      json("[]", { "Content-Type": "Application/JSON; charset=utf-8" }),
    )
    expect(response.status).toBe(200)
  })
})

describe("content type of writes", () => {
  it.each([
    ["text/plain", { "Content-Type": "text/plain" }],
    ["a form", { "Content-Type": "application/x-www-form-urlencoded" }],
    ["no content type on a framed body", { "Content-Length": "2" }],
    ["no content type on a chunked body", { "Transfer-Encoding": "chunked" }],
  ])("rejects %s with 415 before the route runs", async (_, headers) => {
    // Bytes, not a string: a string body would get a text/plain content type from the Request constructor.
    const body = new Uint8Array([0x7b, 0x7d])
    const response = await makeApp().app.request("/logout", { method: "POST", body, headers })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({ error: "Content-Type must be application/json" })
  })

  it.each(["gzip", "deflate", "br", "x-unknown"])(
    "rejects a body in the %s content coding with 415",
    async (coding) => {
      const body = new Uint8Array([0x7b, 0x7d])
      const headers = { "Content-Type": "application/json", "Content-Encoding": coding }
      const response = await makeApp().app.request("/echo", { method: "POST", body, headers })
      expect(response.status).toBe(415)
      expect(await response.json()).toEqual({
        error: `Content-Encoding ${coding} is not supported: send the body uncompressed`,
      })
    },
  )

  it.each(["latin1", "ISO-8859-1", '"utf-16"'])("rejects a JSON body declared charset=%s with 415", async (charset) => {
    const headers = { "Content-Type": `application/json; charset=${charset}` }
    const response = await makeApp().app.request("/echo", { method: "POST", body: '{"a":"\u00e9"}', headers })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({
      error: `A JSON body is read as UTF-8: charset=${charset.replaceAll('"', "").toLowerCase()} is not supported`,
    })
  })

  it.each(["utf-8", "UTF-8", '"utf-8"', "utf8"])("takes a JSON body declared charset=%s", async (charset) => {
    const headers = { "Content-Type": `application/json; Charset=${charset}` }
    const response = await makeApp().app.request("/echo", { method: "POST", body: '{"a":"\u00e9"}', headers })
    expect(await response.json()).toEqual({ body: { a: "\u00e9" } })
  })

  it("takes a body in the identity content coding as any other", async () => {
    const headers = { "Content-Type": "application/json", "Content-Encoding": "Identity" }
    const response = await makeApp().app.request("/echo", { method: "POST", body: '{"a":1}', headers })
    expect(await response.json()).toEqual({ body: { a: 1 } })
  })

  it("rejects an unframed body without a content type in the JSON helper", async () => {
    const response = await makeApp().app.request("/echo", { method: "POST", body: new Uint8Array([0x7b, 0x7d]) })
    expect(response.status).toBe(415)
  })

  it("lets a bodyless write through", async () => {
    const response = await makeApp().app.request("/logout", { method: "POST" })
    expect(response.status).toBe(200)
  })

  it("leaves a bearer request to its route, whose JSON helper refuses the same types after the caller is known", async () => {
    const app = makeApp().app
    const bearer = { Authorization: "Bearer cfs_whatever" }
    // A route that reads no body runs: no browser adds a bearer credential to a cross-site form.
    const bodyless = await app.request("/logout", {
      method: "POST",
      body: "x",
      headers: { ...bearer, "Content-Type": "text/plain" },
    })
    expect(bodyless.status).toBe(200)
    for (const [headers, error] of [
      [{ "Content-Type": "text/plain" }, "Content-Type must be application/json"],
      [
        { "Content-Type": "application/json; charset=latin1" },
        "A JSON body is read as UTF-8: charset=latin1 is not supported",
      ],
      [
        { "Content-Type": "application/json", "Content-Encoding": "gzip" },
        "Content-Encoding gzip is not supported: send the body uncompressed",
      ],
    ] as const) {
      const response = await app.request("/echo", { method: "POST", body: "{}", headers: { ...bearer, ...headers } })
      expect([response.status, await response.json()]).toEqual([415, { error }])
    }
    // Basic credentials are sent by a browser by itself, on a cross-site form too: such a request is checked here.
    const basic = await app.request("/logout", {
      method: "POST",
      body: "x",
      headers: { Authorization: "Basic dXNlcjpwYXNz", "Content-Type": "text/plain" },
    })
    expect(basic.status).toBe(415)
  })

  it("exempts the listed paths", async () => {
    const response = await makeApp().app.request("/form", {
      method: "POST",
      body: "logout_token=x",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    })
    expect(await response.text()).toBe("form ok")
  })
})

describe("failures of use cases", () => {
  it("answer through the error table", async () => {
    const { app } = makeApp()
    const missing = await app.request("/missing")
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ error: "Platform ios was not found" })
  })

  it("carry the table's headers, readable by a listed origin", async () => {
    const { app } = makeApp({ CORS_ORIGIN: APP_ORIGIN })
    const response = await app.request("/limited", { headers: { Origin: APP_ORIGIN } })
    expect(response.status).toBe(429)
    expect(response.headers.get("Retry-After")).toBe("30")
    expect(response.headers.get("Access-Control-Expose-Headers")).toContain("Retry-After")
  })

  it("answer an error without a row as a bare 500", async () => {
    const { app, logs } = makeApp()
    const response = await app.request("/unmapped")
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: "Internal server error" })
    await expect.poll(() => logs.filter((entry) => entry.level === "Error").length).toBe(1)
  })
})

describe("failures nobody planned for", () => {
  it("answer a defect with a bare 500 and log it for operators", async () => {
    const { app, logs } = makeApp()
    const response = await app.request("/defect?token=cfs_should-not-be-logged")
    expect(response.status).toBe(500)
    const text = await response.text()
    expect(JSON.parse(text)).toEqual({ error: "Internal server error" })
    expect(text).not.toMatch(/kaboom|secret-internal-detail|at /)
    await expect.poll(() => logs.filter((entry) => entry.level === "Error").length).toBe(1)
    const logged = logs.filter((entry) => entry.level === "Error")
    expect(logged[0]!.cause).toContain("kaboom")
    expect(JSON.stringify(logs)).not.toContain("cfs_should-not-be-logged")
  })

  it("answer an exception thrown by a route with a bare 500 and log it", async () => {
    const { app, logs } = makeApp()
    const response = await app.request("/throw")
    expect(response.status).toBe(500)
    const text = await response.text()
    expect(JSON.parse(text)).toEqual({ error: "Internal server error" })
    expect(text).not.toContain("secret-internal-detail")
    await expect.poll(() => logs.filter((entry) => entry.level === "Error").length).toBe(1)
    expect(logs.find((entry) => entry.level === "Error")!.cause).toContain("thrown")
  })
})
