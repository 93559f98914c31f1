/**
 * What a refusal says: the server's message, or what its status means, with the wait of a 429; and the person each
 * request is made for (`Coffer-Expected-User`), over a stand-in `fetch` (the browser tests use the real services).
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import {
  ApiError,
  describeError,
  expectUser,
  get,
  onSignedInAsSomeoneElse,
  post,
  SessionChangedError,
} from "./client.js"

describe("describeError", () => {
  it.each([
    [new ApiError(400, "Secret key must not be empty"), "Secret key must not be empty"],
    [new ApiError(403, "Read members cannot change secrets"), "Not allowed: Read members cannot change secrets"],
    [new ApiError(404, "Project not found"), "Project not found"],
    [new ApiError(404, "No such invite"), "Not found: No such invite"],
    [new ApiError(403, "Not allowed for read members"), "Not allowed for read members"],
    [new ApiError(409, "Environment exists"), "Environment exists"],
    [new ApiError(413, "Value is 70000 bytes"), "Too large: Value is 70000 bytes"],
    [new ApiError(429, "Too many requests", 17), "Too many attempts. Wait 17 seconds, then try again."],
    [new ApiError(429, "Too many requests"), "Too many attempts. Wait 60 seconds, then try again."],
    [
      new ApiError(503, "Service unavailable"),
      "The service is unavailable right now (Service unavailable). Try again in a moment.",
    ],
    [new ApiError(0, "Network error"), "The server could not be reached. Check your connection and try again."],
    [new Error("plain"), "plain"],
  ])("%s", (error, sentence) => {
    expect(describeError(error)).toBe(sentence)
  })
})

describe("the person a request is made for", () => {
  const sent: Array<Headers> = []
  const answer = (status: number) =>
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_path: string, init: RequestInit) => {
        sent.push(new Headers(init.headers))
        return new Response(JSON.stringify(status === 200 ? { ok: true } : { error: "refused" }), {
          status,
          headers: { "Content-Type": "application/json" },
        })
      }),
    )
  afterEach(() => {
    sent.length = 0
    expectUser(undefined)
    vi.unstubAllGlobals()
  })

  it("is named on every request, percent-encoded, but not on a session check or while nobody is signed in", async () => {
    answer(200)
    await get("/api/projects")
    expectUser("dev:ädä@example.com")
    await get("/api/projects")
    await post("/api/projects", { name: "A" })
    await get("/api/auth/me", { sessionCheck: true })
    expect(sent.map((headers) => headers.get("Coffer-Expected-User"))).toEqual([
      null,
      "dev%3A%C3%A4d%C3%A4%40example.com",
      "dev%3A%C3%A4d%C3%A4%40example.com",
      null,
    ])
  })

  it("refused for someone else's session (412): the watch is told, and the page hears that nothing was done", async () => {
    answer(412)
    expectUser("alice")
    const told = vi.fn()
    const stop = onSignedInAsSomeoneElse(told)
    const refused = await post("/api/projects", { name: "A" }).catch((error: unknown) => error)
    stop()
    expect(told).toHaveBeenCalledTimes(1)
    expect(refused).toBeInstanceOf(SessionChangedError)
    expect((refused as Error).message).toMatch(/^Nothing was done: someone else signed in/)
  })
})
