import { Readiness } from "@coffer/kernel"
import { settingsFrom } from "@coffer/test-kit/http"
import { makeRuntime } from "@coffer/test-kit/secretsService"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterAll, describe, expect, it } from "vitest"
import { createSecretsApp } from "./app/secretsApp.js"

// The secrets app needs its whole runtime (store, accounts, sessions, cache, cipher) even where a test uses
// only the health routes, so the fixture is the in-memory one of `./secrets/fixtures.ts`.
const fixture = makeRuntime()
afterAll(() => fixture.runtime.dispose())

const OIDC = { OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "coffer", OIDC_NAME: "Acme SSO" }

describe("secrets app: health", () => {
  const app = createSecretsApp({ runtime: fixture.runtime, settings: settingsFrom(), version: "2.0.0" })

  it("answers /healthz with ok", async () => {
    const response = await app.request("/healthz")
    expect(response.status).toBe(200)
    expect(await response.text()).toBe("ok")
    expect(response.headers.get("Cache-Control")).toBe("no-store")
  })

  it("follows the database on /readyz without being rebuilt", async () => {
    fixture.setReady(false)
    const down = await app.request("/readyz")
    expect(down.status).toBe(503)
    expect(await down.json()).toEqual({ error: "Service unavailable" })
    expect(down.headers.get("Cache-Control")).toBe("no-store")
    // The request's line carries the cause of the 503.
    await expect
      .poll(() => fixture.logs.some((entry) => entry.level === "Error" && entry.cause.includes("connection refused")))
      .toBe(true)

    fixture.setReady(true)
    const up = await app.request("/readyz")
    expect(up.status).toBe(200)
    expect(await up.text()).toBe("ok")
  })

  it("answers 503 when the readiness check hangs", async () => {
    const { runtime } = makeRuntime({ readiness: Layer.succeed(Readiness.Readiness, { check: Effect.never }) })
    const hanging = createSecretsApp({ runtime, settings: settingsFrom(), version: "2.0.0" })
    const response = await hanging.request("/readyz")
    expect(response.status).toBe(503)
    await runtime.dispose()
  })
})

describe("secrets app: instance description", () => {
  it.each(["/api/instance", "/"])("%s without OIDC, in production", async (path) => {
    const app = createSecretsApp({
      runtime: fixture.runtime,
      settings: settingsFrom({ COFFER_ENV: "production", COFFER_MASTER_KEY: btoa("k".repeat(32)) }),
      version: "2.0.0",
    })
    const response = await app.request(path)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      name: "coffer-secrets",
      version: "2.0.0",
      signIn: { oidc: null, development: false },
    })
  })

  it.each(["/api/instance", "/"])("%s with OIDC, in development", async (path) => {
    const app = createSecretsApp({ runtime: fixture.runtime, settings: settingsFrom(OIDC), version: "2.0.0" })
    const response = await app.request(path)
    expect(await response.json()).toEqual({
      name: "coffer-secrets",
      version: "2.0.0",
      signIn: { oidc: { name: "Acme SSO", url: "/api/auth/oidc/start" }, development: true },
    })
  })

  it("leads the sign-in button to the public origin, where the provider sends the browser back", async () => {
    // Started under another name (127.0.0.1 for localhost), the state cookie would be set where the callback cannot
    // read it, and the first sign-in would fail.
    const settings = settingsFrom({ ...OIDC, COFFER_PUBLIC_ORIGIN: "https://secrets.example.com" })
    const app = createSecretsApp({ runtime: fixture.runtime, settings, version: "2.0.0" })
    const response = await app.request("/api/instance", { headers: { host: "10.0.0.7:8788" } })
    expect(((await response.json()) as { signIn: unknown }).signIn).toEqual({
      oidc: { name: "Acme SSO", url: "https://secrets.example.com/api/auth/oidc/start" },
      development: true,
    })
  })

  it("answers 404 JSON for the schemas service's paths", async () => {
    const app = createSecretsApp({ runtime: fixture.runtime, settings: settingsFrom(), version: "2.0.0" })
    const response = await app.request("/api/_ui/v1/instance")
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Not found" })
  })

  it("accepts the form-encoded back-channel logout past the JSON-only rule", async () => {
    const app = createSecretsApp({ runtime: fixture.runtime, settings: settingsFrom(), version: "2.0.0" })
    const form = { "Content-Type": "application/x-www-form-urlencoded" }
    // No back-channel route on this app (OIDC is not configured), so the exempt path reaches the 404; another
    // path is stopped at 415 first.
    const exempt = await app.request("/api/auth/backchannel-logout", {
      method: "POST",
      body: "logout_token=x",
      headers: form,
    })
    expect(exempt.status).toBe(404)
    const other = await app.request("/api/auth/logout", { method: "POST", body: "logout_token=x", headers: form })
    expect(other.status).toBe(415)
  })
})
