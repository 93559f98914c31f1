import { schemasSettingsFrom } from "@coffer/test-kit/http"
import { schemasService } from "@coffer/test-kit/schemasService"
import { afterAll, describe, expect, it } from "vitest"
import { createSchemasApp } from "./app/schemasApp.js"

const fixture = schemasService()
afterAll(() => fixture.runtime.dispose())

const app = fixture.app

describe("schemas app", () => {
  it("describes its interface", async () => {
    const response = await app.request("/api/_ui/v1/instance")
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      name: "coffer-schemas",
      version: "9.9.9",
      interfaceVersion: "1.0.0",
      signIn: { oidc: null, development: true },
    })
    expect(response.headers.get("Cache-Control")).toBe("no-store")
  })

  it("answers 404 JSON outside its paths", async () => {
    for (const path of ["/", "/api/_ui/v1/nope", "/api/a/b/c/d", "/nothing/here"]) {
      const response = await app.request(path)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: "Not found" })
      expect(response.headers.get("Cache-Control")).toBe("no-store")
    }
  })

  it("answers 405 naming the methods a path answers, for a method it does not; 404 where no route is", async () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["DELETE", "/api/base", "GET, HEAD, POST, OPTIONS"],
      ["PATCH", "/api/base/1.0.0", "GET, HEAD, PUT, OPTIONS"],
      ["PUT", "/api/_ui/v1/tokens", "GET, HEAD, POST, OPTIONS"],
      ["POST", "/healthz", "GET, HEAD, OPTIONS"],
    ]
    for (const [method, path, allow] of cases) {
      const response = await app.request(path, {
        method,
        headers: { "content-type": "application/json" },
        body: method === "DELETE" ? undefined : "{}",
      })
      expect(response.status, `${method} ${path}`).toBe(405)
      expect(response.headers.get("Allow")).toBe(allow)
      expect(await response.json()).toEqual({ error: `This path does not answer ${method}; it answers ${allow}` })
      expect(response.headers.get("Cache-Control")).toBe("no-store")
      // The same methods an OPTIONS names: one list, which offers OPTIONS because the path answers it.
      expect((await app.request(path, { method: "OPTIONS" })).headers.get("Allow"), path).toBe(allow)
    }
    for (const [method, path] of [
      ["DELETE", "/api/a/b/c/d"],
      ["OPTIONS", "/api/a/b/c/d"],
      ["POST", "/api/a%00b"],
    ]) {
      expect((await app.request(path!, { method })).status, `${method} ${path}`).toBe(404)
    }
  })

  it("answers OPTIONS with 204 and Allow naming the path's methods, as every other answer is framed", async () => {
    for (const [path, allow] of [
      ["/api/base", "GET, HEAD, POST, OPTIONS"],
      ["/api/base/1.0.0", "GET, HEAD, PUT, OPTIONS"],
      ["/api/_ui/v1/tokens", "GET, HEAD, POST, OPTIONS"],
      ["/healthz", "GET, HEAD, OPTIONS"],
    ] as const) {
      const response = await app.request(path, { method: "OPTIONS" })
      expect(response.status, path).toBe(204)
      expect(response.headers.get("Allow")).toBe(allow)
      expect(await response.text()).toBe("")
      expect(response.headers.get("Cache-Control")).toBe("no-store")
      expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff")
      // Without CORS configured, nothing lets another origin's page read anything.
      expect(response.headers.get("Access-Control-Allow-Origin")).toBeNull()
    }
  })

  it("answers its probes as the secrets service does: /healthz ok, /readyz following the database", async () => {
    const health = await app.request("/healthz")
    expect(health.status).toBe(200)
    expect(await health.text()).toBe("ok")
    expect((await app.request("/readyz")).status).toBe(200)
    fixture.setReady(false)
    try {
      const down = await app.request("/readyz")
      expect(down.status).toBe(503)
      expect(await down.json()).toEqual({ error: "Service unavailable" })
      expect((await app.request("/healthz")).status).toBe(200)
    } finally {
      fixture.setReady(true)
    }
    const up = await app.request("/readyz")
    expect(up.status).toBe(200)
    expect(await up.text()).toBe("ok")
  })

  it("reads the secrets service's paths as platforms, which need a credential", async () => {
    const response = await app.request("/api/instance")
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: "Authentication required" })
  })

  it("sends HSTS when its own public origin is https", async () => {
    const secure = createSchemasApp({
      runtime: fixture.runtime,
      settings: schemasSettingsFrom({
        COFFER_SCHEMAS_PUBLIC_ORIGIN: "https://schemas.example.com",
        COFFER_PUBLIC_ORIGIN: "http://localhost:8788",
      }),
      version: "1.2.3",
    })
    const response = await secure.request("/api/_ui/v1/instance")
    expect(response.headers.get("Strict-Transport-Security")).not.toBeNull()
  })

  it("offers the identity provider's sign-in, by name, when one is configured", async () => {
    const withOidc = createSchemasApp({
      runtime: fixture.runtime,
      settings: schemasSettingsFrom({
        OIDC_ISSUER: "https://id.example.com",
        OIDC_CLIENT_ID: "coffer",
        OIDC_CLIENT_SECRET: "s3cret",
        OIDC_NAME: "Example SSO",
      }),
      version: "1.2.3",
    })
    const response = await withOidc.request("/api/_ui/v1/instance")
    expect(((await response.json()) as { signIn: unknown }).signIn).toEqual({
      oidc: { name: "Example SSO", url: "/api/auth/oidc/start" },
      development: true,
    })
  })
})
