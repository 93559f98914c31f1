/**
 * The Schemas dashboard served by the built hosts at `/` of the schemas service (DESIGN.md "Web apps"): `/` and
 * every app path answer the dashboard's `index.html` under the page policy, its hashed assets are immutable, the
 * first load stays within 100 KB of JavaScript gzipped, `/api/*` stays JSON under the API policy, and
 * `COFFER_WEB=off` serves nothing. Runs on each host (`e2e-node`, `e2e-bun`).
 */
import { gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "../host.js"

const PAGE_POLICY = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
const FIRST_LOAD_BUDGET = 100 * 1024

const scriptsOf = (html: string) =>
  [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1]!)

describe("the dashboard served by the schemas service", () => {
  let host: Host
  let base: string
  beforeAll(async () => {
    host = await start({ args: ["serve", "--only", "schemas"] })
    base = host.schemas!
  })
  afterAll(() => host?.stop())

  it.each([
    "/",
    "/sign-in",
    "/platforms",
    "/platforms/ios",
    "/platforms/ios/versions/1.0.0+b.7/history",
    "/tokens",
    "/audit",
  ])("answers %s with the dashboard's page", async (path) => {
    const response = await fetch(`${base}${path}`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(response.headers.get("content-security-policy")).toBe(PAGE_POLICY)
    const html = await response.text()
    expect(html).toContain("<title>Coffer Schemas</title>")
    expect(html).toContain('<div id="app"></div>')
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/\sstyle=/)
  })

  it("serves its hashed assets immutable, and loads at most 100 KB of JavaScript gzipped at first", async () => {
    const html = await (await fetch(base)).text()
    const scripts = scriptsOf(html)
    expect(scripts.length).toBeGreaterThan(0)
    let gzipped = 0
    for (const path of scripts) {
      const response = await fetch(`${base}${path}`)
      expect(response.status).toBe(200)
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      gzipped += gzipSync(Buffer.from(await response.arrayBuffer())).length
    }
    expect(gzipped).toBeLessThanOrEqual(FIRST_LOAD_BUDGET)
  })

  it("leaves /api/* as JSON under the API policy", async () => {
    for (const path of ["/api/schemas", "/api/_ui/v1/platforms", "/api/_ui/v1/no-such-thing", "/api/ios/1.0.0"]) {
      const response = await fetch(`${base}${path}`)
      expect(response.headers.get("content-type"), path).toMatch(/^application\/json/)
      expect(response.headers.get("content-security-policy"), path).toBe(API_POLICY)
      expect(response.status, path).toBeGreaterThanOrEqual(400)
      expect(await response.json(), path).toHaveProperty("error")
    }
    const instance = await fetch(`${base}/api/_ui/v1/instance`)
    expect(await instance.json()).toMatchObject({ name: "coffer-schemas", signIn: { development: true } })
    for (const path of ["/healthz", "/readyz", "/openapi.json"]) {
      expect(await (await fetch(`${base}${path}`)).text(), path).not.toContain("<html")
    }
  })

  it("sends a failed sign-in to the dashboard's sign-in page", async () => {
    const response = await fetch(`${base}/api/auth/oidc/start?returnTo=/platforms`, { redirect: "manual" })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("/sign-in?error=off")
  })
})

describe("the schemas service with COFFER_WEB=off", () => {
  let host: Host
  beforeAll(async () => {
    host = await start({ args: ["serve", "--only", "schemas"], env: { COFFER_WEB: "off" } })
  })
  afterAll(() => host?.stop())

  it("serves no dashboard: / and app paths are JSON", async () => {
    for (const path of ["/", "/platforms", "/sign-in"]) {
      const response = await fetch(`${host.schemas}${path}`)
      expect(response.headers.get("content-type"), path).toMatch(/^application\/json/)
      expect(response.headers.get("content-security-policy"), path).toBe(API_POLICY)
      expect(await response.text(), path).not.toContain("<html")
    }
  })
})
