import { afterAll, describe, expect, it } from "vitest"
import { createSchemasApp } from "./app/schemasApp.js"
import { makeTestRuntime, settingsFrom } from "./testing.js"

const fixture = makeTestRuntime()
afterAll(() => fixture.runtime.dispose())

const app = createSchemasApp({ runtime: fixture.runtime, settings: settingsFrom(), version: "1.2.3" })

describe("schemas app", () => {
  it("describes its interface", async () => {
    const response = await app.request("/api/_ui/v1/instance")
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ name: "coffer-schemas", version: "1.2.3", interfaceVersion: "1.0.0" })
    expect(response.headers.get("Cache-Control")).toBe("no-store")
  })

  it("answers 404 JSON elsewhere, the secrets service's paths included", async () => {
    for (const path of ["/", "/api/instance", "/healthz", "/api/_ui/v1/nope"]) {
      const response = await app.request(path)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: "Not found" })
      expect(response.headers.get("Cache-Control")).toBe("no-store")
    }
  })

  it("sends HSTS when its own public origin is https", async () => {
    const secure = createSchemasApp({
      runtime: fixture.runtime,
      settings: settingsFrom({
        COFFER_SCHEMAS_PUBLIC_ORIGIN: "https://schemas.example.com",
        COFFER_PUBLIC_ORIGIN: "http://localhost:8788",
      }),
      version: "1.2.3",
    })
    const response = await secure.request("/api/_ui/v1/instance")
    expect(response.headers.get("Strict-Transport-Security")).not.toBeNull()
  })
})
