import { Hono } from "hono"
import { describe, expect, it } from "vitest"
import { readCookie, readSessionCookie } from "./cookie.js"

/** Answers the cookies it read: the session cookie for `publicOrigin`, and the cookie `other`. */
const appFor = (publicOrigin: string | undefined) =>
  new Hono().get("/", (c) =>
    c.json({
      session: readSessionCookie(c, "secrets", publicOrigin) ?? null,
      other: readCookie(c, "other") ?? null,
    }),
  )

const read = async (app: Hono, cookie: string | undefined, env?: object) => {
  const response = await app.request("/", cookie === undefined ? {} : { headers: { cookie } }, env)
  return response.json()
}

describe("reading cookies", () => {
  it("reads the session cookie by its service's name, decoded, and any other by its own", async () => {
    const app = appFor(undefined)
    expect(await read(app, "coffer_schemas_session=s; coffer_secrets_session=cfss%20a; other=b")).toEqual({
      session: "cfss a",
      other: "b",
    })
  })

  it("names the session cookie __Host- on an https origin and ignores the bare name there", async () => {
    const app = appFor("https://coffer.example")
    expect(await read(app, "coffer_secrets_session=planted; __Host-coffer_secrets_session=real")).toEqual({
      session: "real",
      other: null,
    })
  })

  it("answers nothing without a Cookie header", async () => {
    expect(await read(appFor(undefined), undefined)).toEqual({ session: null, other: null })
  })

  // On Node the header comes from the IncomingMessage @hono/node-server hands over, so no web Request is built for
  // it: here Node's headers name another session than the web request does, and Node's wins.
  it("reads Node's own request where the host hands it over", async () => {
    const incoming = { headers: { cookie: "coffer_secrets_session=from-node" } }
    expect(await read(appFor(undefined), "coffer_secrets_session=from-web", { incoming })).toEqual({
      session: "from-node",
      other: null,
    })
  })
})
