/**
 * Runs the example and checks what it prints (the README shows the same lines), then checks the mount itself
 * in process: every request under `/config` reaches the Schemas app with the prefix removed, so its path rules
 * and its JSON 404 hold there, and nothing outside `/config` reaches it.
 */
import { afterEach, describe, expect, it } from "vitest"
import { createApp, developmentSettings, main, makeSchemasRuntime, type SchemasRuntime } from "./main.js"

describe("the example", () => {
  it("serves its own routes and the Schemas service under /config", async () => {
    const lines: Array<string> = []
    await main((line) => lines.push(line))
    expect(lines).toEqual([
      'GET /health -> 200 {"status":"ok"}',
      "POST /config/api/auth/dev-login -> 200 signed in as ops@example.com",
      'POST /config/api/base -> 201 {"ok":true}',
      'POST /config/api/ios -> 201 {"ok":true}',
      'PUT /config/api/base/1.0.0 -> 200 schema {"content":{"theme":{"color":"red","size":12}},"dependencies":[],"output":{"theme":{"color":"red","size":12}}}',
      'PUT /config/api/ios/2.0.0 -> 200 schema {"content":{"@extends":"base","theme":{"color":"blue"}},"dependencies":["base"],"output":{"theme":{"color":"blue","size":12}}}',
      "POST /config/api/_ui/v1/tokens -> 201 a token starting with cfs_",
      'GET /config/api/ios/2.0.0 -> 200 {"content":{"@extends":"base","theme":{"color":"blue"}},"dependencies":["base"],"output":{"theme":{"color":"blue","size":12}}}',
      'GET /config/api/_ui/v1/tokens -> 403 {"error":"API tokens are not accepted on dashboard endpoints"}',
      'GET /config/nothing/here -> 404 {"error":"Not found"}',
      "GET /nothing/here -> 404 404 Not Found",
    ])
  })
})

describe("the mount under /config", () => {
  const runtimes: Array<SchemasRuntime> = []
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((runtime) => runtime.dispose()))
  })
  const app = () => {
    const runtime = makeSchemasRuntime()
    runtimes.push(runtime)
    return createApp(runtime)
  }

  it("answers unknown paths under the prefix with the service's JSON 404, never cached", async () => {
    const shop = app()
    for (const path of ["/config", "/config/", "/config/nothing", "/config/api/_ui/v1/nothing"]) {
      const response = await shop.request(`http://shop.test${path}`)
      expect(response.status, path).toBe(404)
      expect(response.headers.get("cache-control"), path).toBe("no-store")
      expect(await response.json(), path).toEqual({ error: "Not found" })
    }
  })

  it("does not answer the service's paths outside the prefix", async () => {
    const shop = app()
    for (const path of ["/api/_ui/v1/instance", "/api/schemas", "/configuration/api/schemas"]) {
      const response = await shop.request(`http://shop.test${path}`)
      expect(response.status, path).toBe(404)
      expect(await response.text(), path).toBe("404 Not Found")
    }
  })

  it("serves the routes under the prefix, with the service's headers and credentials rules", async () => {
    const shop = app()
    const instance = await shop.request("http://shop.test/config/api/_ui/v1/instance")
    expect(instance.status).toBe(200)
    expect(instance.headers.get("x-content-type-options")).toBe("nosniff")
    expect(await instance.json()).toMatchObject({ name: "coffer-schemas", interfaceVersion: "1.0.0" })
    const anonymous = await shop.request("http://shop.test/config/api/schemas")
    expect(anonymous.status).toBe(401)
    const products = await shop.request("http://shop.test/products")
    expect(await products.json()).toEqual([{ sku: "mug", price: 12 }])
    expect(products.headers.get("cache-control")).toBeNull()
  })

  it("keeps the development login off in production", async () => {
    const runtime = makeSchemasRuntime()
    runtimes.push(runtime)
    const shop = createApp(runtime, { ...developmentSettings, environment: "production" })
    const response = await shop.request("http://shop.test/config/api/auth/dev-login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ops@example.com" }),
    })
    expect(response.status).toBe(404)
  })
})
