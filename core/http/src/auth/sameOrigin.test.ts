import { settingsFrom } from "@coffer/test-kit/http"
import { makeTestRuntime } from "@coffer/test-kit/runtime"
import { describe, expect, it } from "vitest"
import { createBaseApp } from "../app/base.js"
import { DEV_LOGIN_PATH } from "./devLogin.js"

const appWith = (publicOrigin: string, cors?: string) => {
  const { runtime } = makeTestRuntime()
  const settings = settingsFrom(cors === undefined ? {} : { CORS_ORIGIN: cors })
  const { app } = createBaseApp({ runtime, settings, publicOrigin })
  app.post("/api/change", (c) => c.json({ ok: true }))
  return app
}

const post = (headers: Record<string, string>) =>
  new Request("http://coffer.test/api/change", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: "{}",
  })

describe("same-origin writes", () => {
  const app = appWith("https://coffer.example", "https://dash.example")

  it("refuses a cookie-authenticated write from another origin", async () => {
    const response = await app.request(
      post({ cookie: "__Host-coffer_secrets_session=cfss_x", origin: "https://evil.example", host: "coffer.test" }),
    )
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({ error: "Cross-origin request refused" })
  })

  it("accepts the request's own origin, the public origin and CORS origins", async () => {
    for (const origin of ["http://coffer.test", "https://coffer.example", "https://dash.example"]) {
      const response = await app.request(
        post({ cookie: "__Host-coffer_secrets_session=cfss_x", origin, host: "coffer.test" }),
      )
      expect(response.status).toBe(200)
    }
  })

  it("lets writes without the session cookie or without Origin through", async () => {
    expect((await app.request(post({ origin: "https://evil.example" }))).status).toBe(200)
    expect((await app.request(post({ cookie: "__Host-coffer_secrets_session=cfss_x" }))).status).toBe(200)
  })

  it("checks writes carrying either service's session cookie, as both may share one host", async () => {
    const response = await app.request(
      post({
        cookie: "theme=dark; __Host-coffer_schemas_session=cfss_x",
        origin: "https://evil.example",
        host: "coffer.test",
      }),
    )
    expect(response.status).toBe(403)
  })

  it("uses the plain cookie name on an http public origin", async () => {
    const plain = appWith("http://localhost:8788")
    const response = await plain.request(
      post({ cookie: "coffer_secrets_session=cfss_x", origin: "https://evil.example", host: "coffer.test" }),
    )
    expect(response.status).toBe(403)
  })

  describe("the development login (a sign-in path)", () => {
    const signInApp = (publicOrigin: string, cors?: string) => {
      const app = appWith(publicOrigin, cors)
      app.post(DEV_LOGIN_PATH, (c) => c.json({ ok: true }))
      return app
    }
    const signIn = (origin: string, host: string) =>
      new Request(`http://${host}${DEV_LOGIN_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin, host },
        body: "{}",
      })

    it("refuses its own origin when that is a DNS name: a rebinding page names itself in Host and Origin alike", async () => {
      // The websec probe's finding: rebind.evil.example, pointed at 127.0.0.1, signed in as anyone (200).
      const app = signInApp("http://localhost:8788")
      const response = await app.request(signIn("http://rebind.evil.example:8788", "rebind.evil.example:8788"))
      expect(response.status).toBe(403)
      expect(((await response.json()) as { error: string }).error).toContain("Sign-in refused at")
    })

    it("accepts its own origin at localhost or an IP address, and the public and CORS origins by any name", async () => {
      const app = signInApp("https://coffer.example", "https://dash.example")
      for (const [origin, host] of [
        ["http://localhost:8788", "localhost:8788"],
        ["http://app.localhost:8788", "app.localhost:8788"],
        ["http://127.0.0.1:8788", "127.0.0.1:8788"],
        ["http://192.168.1.5:8788", "192.168.1.5:8788"],
        ["http://[::1]:8788", "[::1]:8788"],
        ["https://coffer.example", "coffer.internal:8788"],
        ["https://dash.example", "coffer.internal:8788"],
      ])
        expect((await app.request(signIn(origin!, host!))).status).toBe(200)
    })

    it("still refuses another origin, and lets a request without Origin (no browser) through", async () => {
      const app = signInApp("http://localhost:8788")
      expect((await app.request(signIn("http://evil.example", "localhost:8788"))).status).toBe(403)
      const bare = new Request(`http://coffer.test${DEV_LOGIN_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      })
      expect((await app.request(bare)).status).toBe(200)
    })
  })
})
