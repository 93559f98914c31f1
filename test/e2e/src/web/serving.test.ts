/**
 * The built hosts serving the built web app (DESIGN.md "Web apps"): page and asset headers, the API left as it
 * was, and `COFFER_WEB=off`. Runs on each host (`e2e-node`, `e2e-bun`).
 */
import { gzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "../host.js"

const PAGE_POLICY = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
/** Issue 12 "Quality": at most 100 KB of JavaScript, gzipped, on first load. */
const FIRST_LOAD_BUDGET = 100 * 1024

describe("web app served by the host", () => {
  let host: Host
  let base: string
  beforeAll(async () => {
    host = await start({ args: ["serve", "--only", "secrets"] })
    base = host.secrets!
  })
  afterAll(() => host?.stop())

  it.each(["/", "/sign-in", "/projects/acme/compare", "/projects/acme/people", "/api-keys", "/invite"])(
    "answers %s with the app's page",
    async (path) => {
      const response = await fetch(`${base}${path}`)
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(response.headers.get("content-security-policy")).toBe(PAGE_POLICY)
      const html = await response.text()
      expect(html).toContain('<div id="app"></div>')
      // Nothing inline: every script is a file under /assets/.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
      expect(html).not.toMatch(/\sstyle=/)
    },
  )

  it("answers the page's hashed assets with a long immutable cache", async () => {
    const html = await (await fetch(base)).text()
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!)
    expect(assets.some((path) => path.endsWith(".js"))).toBe(true)
    expect(assets.some((path) => path.endsWith(".css"))).toBe(true)
    for (const path of assets) {
      const response = await fetch(`${base}${path}`)
      expect(response.status).toBe(200)
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    }
    const script = await fetch(`${base}${assets.find((path) => path.endsWith(".js"))}`)
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
  })

  it("loads at most 100 KB of JavaScript gzipped at first: the entry and every module it preloads", async () => {
    const html = await (await fetch(base)).text()
    const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1]!)
    expect(scripts.length).toBeGreaterThan(0)
    let gzipped = 0
    for (const path of scripts) {
      gzipped += gzipSync(Buffer.from(await (await fetch(`${base}${path}`)).arrayBuffer())).length
    }
    expect(gzipped).toBeLessThanOrEqual(FIRST_LOAD_BUDGET)
  })

  it("leaves /api, /healthz and /readyz untouched", async () => {
    const unknown = await fetch(`${base}/api/no-such-thing`)
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ error: "Not found" })
    expect(unknown.headers.get("content-security-policy")).toBe(API_POLICY)
    const instance = await fetch(`${base}/api/instance`)
    expect(await instance.json()).toMatchObject({ name: "coffer-secrets", signIn: { development: true } })
    expect(instance.headers.get("content-security-policy")).toBe(API_POLICY)
    expect(instance.headers.get("cache-control")).toBe("no-store")
    expect(await (await fetch(`${base}/healthz`)).text()).toBe("ok")
    expect(await (await fetch(`${base}/readyz`)).text()).toBe("ok")
    const missingAsset = await fetch(`${base}/assets/missing-000.js`)
    expect(missingAsset.status).toBe(404)
    expect(await missingAsset.json()).toEqual({ error: "Not found" })
  })

  it("sends a failed sign-in to the sign-in page", async () => {
    const response = await fetch(`${base}/api/auth/oidc/start?returnTo=/projects`, { redirect: "manual" })
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("/sign-in?error=off")
  })
})

describe("COFFER_WEB=off", () => {
  let host: Host
  beforeAll(async () => {
    host = await start({ args: ["serve", "--only", "secrets"], env: { COFFER_WEB: "off" } })
  })
  afterAll(() => host?.stop())

  it("serves no app: GET / is the instance description and app paths are JSON 404", async () => {
    const root = await fetch(`${host.secrets}/`)
    expect(root.headers.get("content-type")).toMatch(/^application\/json/)
    expect(await root.json()).toMatchObject({ name: "coffer-secrets", signIn: { oidc: null, development: true } })
    const page = await fetch(`${host.secrets}/projects`)
    expect(page.status).toBe(404)
    expect(await page.json()).toEqual({ error: "Not found" })
  })

  it("answers a failed sign-in with JSON", async () => {
    const response = await fetch(`${host.secrets}/api/auth/oidc/start`, { redirect: "manual" })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: "Sign-in with OpenID Connect is not configured" })
  })
})

describe("a bad COFFER_WEB", () => {
  it("stops the start with a line naming the setting", async () => {
    await expect(start({ env: { COFFER_WEB: "maybe" }, timeoutMs: 10_000 })).rejects.toThrow(
      'COFFER_WEB: expected on or off, got "maybe"',
    )
  })
})
