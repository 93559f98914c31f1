import { Hono } from "hono"
import type { H } from "hono/types"
import { describe, expect, it } from "vitest"
import { CachedRouter, type Entry, MATCHED_PATH_MAX_LENGTH, MATCHES_MAX } from "./router.js"

const failing = () => new Response("failed", { status: 500 })

/** An entry as Hono registers it, its handler answering with `name`. */
const entry = (method: string, path: string, name: string): Entry => {
  const handler: H = (c) => c.text(name)
  return [handler, { basePath: "/", path, method, handler }]
}

/** A router with routes shaped like the schemas service's: a static path beside parameterised ones. */
const counting = () => {
  const router = new CachedRouter(failing)
  for (const [method, path, name] of [
    ["GET", "/api/_ui/v1/platforms", "platforms"],
    ["GET", "/api/:platform", "platform"],
    ["GET", "/api/:platform/:version", "schema"],
    ["PUT", "/api/:platform/:version", "save"],
  ] as const)
    router.add(method, path, entry(method, path, name))
  return router
}

/** The templates of the routes a match hands Hono. */
const handlers = (result: ReturnType<CachedRouter["match"]>) => result[0].map(([[, route]]) => route.path)

describe("the app's router", () => {
  it("matches as Hono's own does, parameters included, on the first ask and on every later one", () => {
    const router = counting()
    for (let i = 0; i < 2; i++) {
      const found = router.match("GET", "/api/ios/1.0.0")
      expect(handlers(found)).toEqual(["/api/:platform/:version"])
      const params = found[0][0]![1] as Record<string, unknown>
      const value = (key: string) => (found[1] === undefined ? params[key] : found[1][params[key] as number])
      expect([value("platform"), value("version")]).toEqual(["ios", "1.0.0"])
      expect(handlers(router.match("GET", "/api/_ui/v1/platforms"))).toEqual(["/api/_ui/v1/platforms"])
      expect(handlers(router.match("PUT", "/api/ios/1.0.0"))).toEqual(["/api/:platform/:version"])
      expect(handlers(router.match("DELETE", "/api/ios/1.0.0"))).toEqual([])
    }
    // Another path is matched for itself, never answered with a kept match of another.
    const other = router.match("GET", "/api/android/2.0.0")
    const params = other[0][0]![1] as Record<string, unknown>
    const platform = other[1] === undefined ? params.platform : other[1][params.platform as number]
    expect(platform).toBe("android")
  })

  it("matches a path with a NUL as no route's, while the middlewares on * still frame it", () => {
    const router = counting()
    router.add("ALL", "*", entry("ALL", "*", "frame"))
    expect(handlers(router.match("GET", "/api/ios/1.0.0"))).toEqual(["/api/:platform/:version"])
    const long = `/api/${"x".repeat(MATCHED_PATH_MAX_LENGTH)}%00/1`
    for (const path of ["/api/ios/1.0.0%00", "/api/%00", "/api/ios/\u0000", long]) {
      expect([path, handlers(router.match("GET", path))]).toEqual([path, ["*"]])
    }
  })

  it("keeps a path's match and hands the same one out again", () => {
    const router = counting()
    expect(router.match("GET", "/api/ios/1.0.0")).toBe(router.match("GET", "/api/ios/1.0.0"))
  })

  it(`keeps at most ${MATCHES_MAX} paths, the oldest leaving first, and never a path longer than ${MATCHED_PATH_MAX_LENGTH}`, () => {
    const router = counting()
    const first = router.match("GET", "/api/p0/1")
    for (let i = 1; i <= MATCHES_MAX; i++) router.match("GET", `/api/p${i}/1`)
    expect(router.match("GET", "/api/p0/1")).not.toBe(first)
    const long = `/api/${"x".repeat(MATCHED_PATH_MAX_LENGTH)}/1`
    expect(router.match("GET", long)).not.toBe(router.match("GET", long))
    expect(handlers(router.match("GET", long))).toEqual(["/api/:platform/:version"])
  })

  it("names a path's methods as every Allow says them: HEAD beside GET, OPTIONS last; none where no route is", () => {
    const router = counting()
    expect(router.allowedMethods("/api/ios/1.0.0")).toEqual(["GET", "HEAD", "PUT", "OPTIONS"])
    expect(router.allowedMethods("/api/_ui/v1/platforms")).toEqual(["GET", "HEAD", "OPTIONS"])
    expect(router.allowedMethods("/api/a/b/c")).toEqual([])
    expect(router.allowedMethods("/api/ios/%00")).toEqual([])
  })

  it("serves a Hono app: parameters reach the handler", async () => {
    const app = new Hono({ router: new CachedRouter(failing) })
    app.get("/api/_ui/v1/platforms", (c) => c.text("list"))
    app.get("/api/:platform/:version", (c) => c.text(`${c.req.param("platform")} ${c.req.param("version")}`))
    for (let i = 0; i < 2; i++) {
      expect(await (await app.request("/api/ios/1.0.0")).text()).toBe("ios 1.0.0")
      expect(await (await app.request("/api/web/2%2B1")).text()).toBe("web 2+1")
      expect(await (await app.request("/api/_ui/v1/platforms")).text()).toBe("list")
    }
  })
})
