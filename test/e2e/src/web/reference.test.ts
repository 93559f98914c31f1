/**
 * `GET /openapi.json` and the reference at `/docs` on both services of the built host, without a credential, and
 * with `COFFER_WEB=off` (they are the service's, not the web app's). In Chromium the reference loads under the
 * page policy (`'self'` only) with no console error or CSP violation, and lists every operation of the document.
 * Runs on each host (`e2e-node`, `e2e-bun`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "../host.js"
import { useBrowser } from "./browser.js"

const PAGE_POLICY = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

interface Document {
  readonly openapi: string
  readonly info: { readonly title: string }
  readonly paths: Readonly<Record<string, Readonly<Record<string, { readonly summary: string }>>>>
}

describe("the API reference of both services", () => {
  const browser = useBrowser()
  let host: Host
  beforeAll(async () => {
    host = await start({ args: ["serve"], env: { COFFER_WEB: "off" } })
  })
  afterAll(() => host?.stop())

  it.each([
    ["schemas", "Coffer Schemas", "/api/{platform}/{version}"],
    ["secrets", "Coffer Secrets", "/api/projects/{slug}/environments/{env}/secrets"],
  ] as const)("%s: answers /openapi.json and renders it at /docs", async (service, title, path) => {
    const base = host[service]!
    const answer = await fetch(`${base}/openapi.json`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
    const document = (await answer.json()) as Document
    expect(document).toMatchObject({ openapi: "3.1.0", info: { title } })
    expect(document.paths).toHaveProperty([path])
    const operations = Object.values(document.paths).reduce((count, item) => count + Object.keys(item).length, 0)

    const docs = await fetch(`${base}/docs`)
    expect(docs.headers.get("content-security-policy")).toBe(PAGE_POLICY)
    const html = await docs.text()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/\sstyle=/)

    const page = await browser.open(`${base}/docs`)
    await page.locator('main[aria-busy="false"]').waitFor()
    expect(await page.locator("h1").textContent()).toBe(title)
    expect(await page.locator("details.operation").count()).toBe(operations)
    await expect(page.locator(".path", { hasText: path }).first().isVisible()).resolves.toBe(true)
    // The filter narrows the list to matching operations.
    await page.locator("#filter").fill("openapi.json")
    expect(await page.locator("details.operation:visible").count()).toBe(1)
  })
})
