/**
 * The polling of `coffer login --web` against a scripted server, on Effect's test clock: it waits `interval`
 * seconds before each poll and 5 s longer after each `slow_down` (RFC 8628 §3.5), and ends on a key, a denial
 * (refused, exit 4) or an expiry (auth, exit 2).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { afterEach, describe, expect, it } from "vitest"
import { awaitCliLogin, startCliLogin } from "./cliLogin.js"
import { EXIT_CODES } from "./failure.js"

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

const KEY = { key: `cfk_${"k".repeat(43)}`, name: "laptop", scope: "read", expiresAt: null, projectSlug: "app" }

/** A server answering each poll with the next of `answers`: a code (400) or the key (200). */
const scripted = async (answers: ReadonlyArray<string>) => {
  let polls = 0
  const server = createServer((_request, response) => {
    const answer = answers[Math.min(polls++, answers.length - 1)]!
    response.setHeader("content-type", "application/json")
    response.statusCode = answer === "key" ? 200 : 400
    response.end(JSON.stringify(answer === "key" ? KEY : { error: answer, code: answer }))
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, polls: () => polls }
}

const started = { deviceCode: "cfd_x", userCode: "BCDF-GHJK", verificationUrl: "", expiresIn: 600, interval: 2 }
const realPause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))

describe("awaitCliLogin", () => {
  it("polls every interval, 5 s slower after slow_down, until the key comes", async () => {
    const server = await scripted(["slow_down", "authorization_pending", "key"])
    const key = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(awaitCliLogin(server.url, started))
        const pollsAfter = function* (seconds: number) {
          yield* TestClock.adjust(`${seconds} seconds`)
          yield* realPause
          return server.polls()
        }
        expect(yield* pollsAfter(1)).toBe(0)
        expect(yield* pollsAfter(1)).toBe(1)
        // slow_down: the interval is now 7 s.
        expect(yield* pollsAfter(6)).toBe(1)
        expect(yield* pollsAfter(1)).toBe(2)
        expect(yield* pollsAfter(6)).toBe(2)
        expect(yield* pollsAfter(1)).toBe(3)
        return yield* Fiber.join(fiber)
      }).pipe(Effect.provide(TestClock.layer())),
    )
    expect(key).toEqual(KEY)
  })

  it.each([
    ["access_denied", "refused", "the login was denied in the browser"],
    ["expired_token", "auth", "the login expired before it was approved"],
  ] as const)("%s ends it: %s", async (code, kind, message) => {
    const server = await scripted([code])
    const failure = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(Effect.flip(awaitCliLogin(server.url, { ...started, interval: 0 })))
        yield* TestClock.adjust("1 second")
        return yield* Fiber.join(fiber)
      }).pipe(Effect.provide(TestClock.layer())),
    )
    expect(failure).toMatchObject({ kind, message: expect.stringContaining(message) })
    expect(EXIT_CODES[kind]).toBeGreaterThan(0)
  })
})

describe("startCliLogin", () => {
  /** A server answering the start with `verificationUrl` and `userCode`. */
  const starting = async (verificationUrl: string, userCode = "BCDF-GHJK") => {
    const server = createServer((_request, response) => {
      response.setHeader("content-type", "application/json")
      response.statusCode = 201
      response.end(JSON.stringify({ ...started, verificationUrl, userCode }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    closers.push(() => server.close())
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  it("takes a Coffer's approval page, and no URL or code a shell or a terminal would read as more", async () => {
    const page = "https://secrets.example.com/cli-login?code=BCDF-GHJK"
    const ok = await Effect.runPromise(startCliLogin(await starting(page), undefined))
    expect(ok.verificationUrl).toBe(page)
    expect(
      (await Effect.runPromise(startCliLogin(await starting("http://[::1]:8788/cli-login?code=B"), undefined)))
        .verificationUrl,
    ).toBe("http://[::1]:8788/cli-login?code=B")
    for (const [url, code] of [
      ["http://x/|calc.exe", "BCDF-GHJK"],
      ["http://x/a&b", "BCDF-GHJK"],
      ["http://x/%PATH%", "BCDF-GHJK"],
      ["http://x/^", "BCDF-GHJK"],
      ["file:///etc/passwd", "BCDF-GHJK"],
      ["javascript:alert(1)", "BCDF-GHJK"],
      ["http://ada:pw@x/", "BCDF-GHJK"],
      ["http://x/\u001b[2J", "BCDF-GHJK"],
      [page, "BCDF\u001b[2J"],
    ] as const) {
      const failure = await Effect.runPromise(Effect.flip(startCliLogin(await starting(url, code), undefined)))
      expect(failure, url).toMatchObject({ kind: "server", message: expect.stringContaining("unexpected answer") })
    }
  })
})
