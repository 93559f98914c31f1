/**
 * The serving rules of DESIGN.md "Web apps", through both real apps with a built app stood in by a few bytes:
 * which paths answer the page, which the API; caching and content security policy of each; `GET /` on secrets
 * without an app; and failed sign-ins landing on the sign-in page only when the app is served.
 */

import { schemasSettingsFrom, settingsFrom } from "@coffer/test-kit/http"
import { schemasService } from "@coffer/test-kit/schemasService"
import { makeRuntime } from "@coffer/test-kit/secretsService"
import { afterAll, describe, expect, it } from "vitest"
import { createSchemasApp } from "../app/schemasApp.js"
import { createSecretsApp } from "../app/secretsApp.js"
import { CONTENT_SECURITY_POLICY } from "../middleware/securityHeaders.js"
import { IMMUTABLE_CACHE_CONTROL, PAGE_CONTENT_SECURITY_POLICY, type WebApp } from "./webApp.js"

const INDEX = "<!doctype html><title>app</title>"
const SCRIPT = "console.log('app')"
const web: WebApp = {
  index: new TextEncoder().encode(INDEX),
  files: new Map([
    ["/assets/index-abc123.js", { body: new TextEncoder().encode(SCRIPT), type: "text/javascript; charset=utf-8" }],
  ]),
}

const secrets = makeRuntime()
const schemas = schemasService()
afterAll(() => Promise.all([secrets.runtime.dispose(), schemas.runtime.dispose()]))

const apps = {
  secrets: (withWeb: boolean) =>
    createSecretsApp({
      runtime: secrets.runtime,
      settings: settingsFrom(),
      version: "1.0.0",
      web: withWeb ? web : undefined,
    }),
  schemas: (withWeb: boolean) =>
    createSchemasApp({
      runtime: schemas.runtime,
      settings: schemasSettingsFrom(),
      version: "1.0.0",
      web: withWeb ? web : undefined,
    }),
}

describe.each(["secrets", "schemas"] as const)("%s app with its web app", (service) => {
  const app = apps[service](true)

  it.each(["/", "/sign-in", "/projects/acme", "/projects/acme/environments/production/secrets/KEY/history"])(
    "answers %s with the page, no-store, and the page policy",
    async (path) => {
      const response = await app.request(path)
      expect(response.status).toBe(200)
      expect(await response.text()).toBe(INDEX)
      expect(response.headers.get("Content-Type")).toBe("text/html; charset=utf-8")
      expect(response.headers.get("Cache-Control")).toBe("no-store")
      expect(response.headers.get("Content-Security-Policy")).toBe(PAGE_CONTENT_SECURITY_POLICY)
      expect(response.headers.get("X-Frame-Options")).toBe("DENY")
      expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff")
    },
  )

  it("allows only 'self' on pages, nothing inline or evaluated", () => {
    expect(PAGE_CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    )
    expect(PAGE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe/)
  })

  it("answers a hashed asset with its type and a long immutable cache", async () => {
    const response = await app.request("/assets/index-abc123.js")
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(SCRIPT)
    expect(response.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8")
    expect(response.headers.get("Cache-Control")).toBe(IMMUTABLE_CACHE_CONTROL)
  })

  it("answers HEAD like GET without a body", async () => {
    const response = await app.request("/projects", { method: "HEAD" })
    expect(response.status).toBe(200)
    expect(response.headers.get("Cache-Control")).toBe("no-store")
    expect(await response.text()).toBe("")
  })

  it("answers a missing asset with a JSON 404, never the page", async () => {
    const response = await app.request("/assets/gone-000000.js")
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Not found" })
    expect(response.headers.get("Cache-Control")).toBe("no-store")
  })

  it.each([
    "/api",
    "/api/",
    "/api/nothing-here",
    "/api/projects/acme/environments/x/secrets/KEY/nope/deeper",
    "/docs/nothing-here",
    "/metrics",
  ])("leaves %s to the API: its JSON answer with the API policy, never the page", async (path) => {
    const response = await app.request(path)
    // The schemas API reads `/api/{platform}` as a platform and asks for credentials first; an unmatched path
    // is its JSON 404 on both.
    expect(response.status).toBe(service === "schemas" && path === "/api/nothing-here" ? 401 : 404)
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/)
    expect(await response.json()).toHaveProperty("error")
    expect(response.headers.get("Content-Security-Policy")).toBe(CONTENT_SECURITY_POLICY)
    expect(response.headers.get("Cache-Control")).toBe("no-store")
  })

  it.each(["//api/projects/acme", "/projects//acme", "//"])(
    "answers %s, a path with an empty segment, with the JSON 404, never the page",
    async (path) => {
      const response = await app.request(`http://localhost${path}`)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: "Not found" })
    },
  )

  it("answers /openapi.json and /docs with the service's document and reference, never the app's page", async () => {
    const document = await app.request("/openapi.json")
    expect(document.status).toBe(200)
    expect(document.headers.get("Content-Type")).toMatch(/^application\/json/)
    expect(await document.json()).toMatchObject({ openapi: "3.1.0" })
    const docs = await app.request("/docs")
    expect(docs.status).toBe(200)
    const html = await docs.text()
    expect(html).toContain('<script type="module" src="docs/docs.js">')
    expect(html).not.toBe(INDEX)
    expect(docs.headers.get("Content-Security-Policy")).toBe(PAGE_CONTENT_SECURITY_POLICY)
  })

  it("keeps API answers as they were: JSON, no-store, default-src 'none'", async () => {
    const path = service === "secrets" ? "/api/instance" : "/api/_ui/v1/instance"
    const response = await app.request(path)
    expect(response.status).toBe(200)
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/)
    expect(response.headers.get("Content-Security-Policy")).toBe(CONTENT_SECURITY_POLICY)
    expect(response.headers.get("Cache-Control")).toBe("no-store")
  })

  it("serves no page to writes: a POST to an app path is the API's 404", async () => {
    const response = await app.request("/projects", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Not found" })
  })

  it("sends a failed sign-in to the sign-in page (here: sign-in is off)", async () => {
    const response = await app.request("/api/auth/oidc/start?returnTo=/projects")
    expect(response.status).toBe(302)
    expect(response.headers.get("Location")).toBe("/sign-in?error=off")
  })
})

describe.each(["secrets", "schemas"] as const)("%s app without a web app (COFFER_WEB=off)", (service) => {
  const app = apps[service](false)

  it("serves no page on app paths", async () => {
    const response = await app.request("/projects")
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Not found" })
    expect(response.headers.get("Content-Security-Policy")).toBe(CONTENT_SECURITY_POLICY)
  })

  it("answers a failed sign-in with JSON", async () => {
    const response = await app.request("/api/auth/oidc/start?returnTo=/projects")
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Sign-in with OpenID Connect is not configured" })
  })
})

describe("GET / on secrets", () => {
  it("is the instance description without an app", async () => {
    const response = await apps.secrets(false).request("/")
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ name: "coffer-secrets", signIn: { development: true } })
  })

  it("is the app with one", async () => {
    const response = await apps.secrets(true).request("/")
    expect(await response.text()).toBe(INDEX)
  })
})
