import { type Context, Hono, type MiddlewareHandler } from "hono"
import { describe, expect, it } from "vitest"
import { type Passed, passesSynchronously } from "./chain.js"
import { CachedRouter } from "./router.js"

const onError = (error: Error, c: Context) => c.json({ error: error.message }, 500)

/**
 * One app's routes on a given router: a synchronous frame outermost that records what it saw after the rest, a
 * Hono-style async middleware, and routes that answer, fail or hand on in every way a handler can.
 */
const appOn = (router?: CachedRouter) => {
  const app = router === undefined ? new Hono() : new Hono({ router })
  const seen: Array<string> = []
  const frame = (c: Context, next: () => Passed): Passed => {
    seen.push("frame in")
    const passed = next()
    const out = () => void seen.push(`frame out ${c.res.status}${c.error === undefined ? "" : " error"}`)
    return passed instanceof Promise ? passed.then(out) : out()
  }
  app.use(passesSynchronously(frame) as MiddlewareHandler)
  app.use("/guarded/*", async (c, next) => {
    if (c.req.header("x-stop") !== undefined) return c.json({ stopped: true }, 403)
    const passed = next()
    seen.push(`guard given ${passed instanceof Promise ? "a promise" : "nothing"}`)
    await passed
  })
  app.use("/twice", async (_c, next) => {
    await next()
    await next()
  })
  app.get("/sync/:name", (c) => c.text(`hello ${c.req.param("name")}`))
  app.get("/async", async (c) => {
    await new Promise((resolve) => setTimeout(resolve, 1))
    return c.text("later")
  })
  app.get("/guarded/:id", (c) => c.text(`guarded ${c.req.param("id")}`))
  app.get("/throws", () => {
    throw new Error("thrown")
  })
  app.get("/rejects", async () => {
    throw new Error("rejected")
  })
  app.get("/twice", (c) => c.text("twice"))
  app.get("/silent", () => undefined as unknown as Response)
  app.onError(onError)
  app.notFound((c) => c.json({ error: "Not found" }, 404))
  return { app, seen }
}

const outcome = async ({ app, seen }: ReturnType<typeof appOn>, path: string, headers?: Record<string, string>) => {
  seen.length = 0
  const response = await app.request(path, { headers })
  return { status: response.status, body: await response.text(), seen: [...seen] }
}

const PATHS = ["/sync/ada", "/async", "/guarded/7", "/throws", "/rejects", "/twice", "/silent", "/nowhere"] as const

describe("a request's handlers run as one (the app's router)", () => {
  it("answers, fails and hands on exactly as Hono's own compose does", async () => {
    const theirs = appOn()
    const ours = appOn(new CachedRouter(onError))
    for (const path of PATHS) {
      const expected = await outcome(theirs, path)
      // Twice: the second request runs the chain kept for its path.
      expect(await outcome(ours, path), path).toEqual(expected)
      expect(await outcome(ours, path), path).toEqual(expected)
    }
    const stopped = await outcome(theirs, "/guarded/7", { "x-stop": "1" })
    expect(await outcome(ours, "/guarded/7", { "x-stop": "1" })).toEqual(stopped)
    // What the comparison covers, so that it cannot pass by both failing alike.
    expect((await outcome(ours, "/throws")).seen).toEqual(["frame in", "frame out 500 error"])
    expect(stopped).toMatchObject({ status: 403, seen: ["frame in", "frame out 403"] })
    expect(await outcome(ours, "/nowhere")).toMatchObject({ status: 404, seen: ["frame in", "frame out 404"] })
    expect(await outcome(ours, "/twice")).toMatchObject({
      status: 500,
      body: '{"error":"next() called multiple times"}',
    })
    expect(await outcome(ours, "/silent")).toMatchObject({ status: 500 })
  })

  it("answers within the call when every handler answers at once", () => {
    const { app, seen } = appOn(new CachedRouter(onError))
    const answer = app.fetch(new Request("http://localhost/sync/ada"))
    expect(answer).toBeInstanceOf(Response)
    expect(seen).toEqual(["frame in", "frame out 200"])
    // Through Hono's compose the same request is a promise.
    expect(appOn().app.fetch(new Request("http://localhost/sync/ada"))).toBeInstanceOf(Promise)
  })

  it("gives a middleware not marked a promise from next, and every handler the answering route's parameters", async () => {
    const { app, seen } = appOn(new CachedRouter(onError))
    expect(await outcome({ app, seen }, "/guarded/7")).toEqual({
      status: 200,
      body: "guarded 7",
      seen: ["frame in", "guard given a promise", "frame out 200"],
    })
    const params = new Hono({ router: new CachedRouter(onError) })
    params.use("*", async (c, next) => {
      c.header("x-id", c.req.param("id") ?? "none")
      await next()
    })
    params.get("/items/:id", (c) => c.text("item"))
    expect((await params.request("/items/42")).headers.get("x-id")).toBe("42")
  })

  it("lets what is not an Error escape, as Hono does", async () => {
    for (const router of [undefined, new CachedRouter(onError)]) {
      const app = router === undefined ? new Hono() : new Hono({ router })
      app.use(async (_c, next) => next())
      app.get("/", () => {
        throw "not an error"
      })
      app.onError(onError)
      await expect(Promise.resolve().then(() => app.request("/"))).rejects.toBe("not an error")
    }
  })
})
