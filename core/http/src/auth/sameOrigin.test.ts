import { settingsFrom } from "@coffer/test-kit/http"
import { makeTestRuntime } from "@coffer/test-kit/runtime"
import { describe, expect, it } from "vitest"
import { createBaseApp } from "../app/base.js"

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
})
