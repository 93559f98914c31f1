/**
 * `Coffer-Expected-User` on both services (`./session.ts`): a browser holds one session cookie for all its tabs, so a
 * page loaded for one person may send after another signed in elsewhere. A request that names its person is refused
 * with 412 when the cookie's session is someone else's, before anything is done; the named person's session, a
 * request without the header and a bearer credential go on as before. Both apps are held to their OpenAPI documents
 * (the test kits' conformance check), which must list the 412 and the header.
 */
import { createPlatforms, schemasService } from "@coffer/test-kit/schemasService"
import { makeService, populate } from "@coffer/test-kit/secretsService"
import { afterAll, describe, expect, it } from "vitest"
import { EXPECTED_USER_HEADER } from "./session.js"

const SOMEONE_ELSE = {
  error:
    "Someone else is signed in in this browser now: this request was made for another person's page, and nothing " +
    "was done. Reload the page to continue as the person signed in.",
}

describe("secrets: a request made for one person, sent with another's session", async () => {
  const service = makeService()
  afterAll(() => service.runtime.dispose())
  const { call } = service
  const { owner, writer, writeKey, secrets } = await populate(service)
  const expecting = (userId: string) => ({ [EXPECTED_USER_HEADER]: userId })
  const versionOf = async () =>
    ((await call("GET", `${secrets}/EXISTING`, { as: owner.as })).body as { secret: { version: number } }).secret
      .version

  it("is refused with 412 and changes nothing, for a write and a read", async () => {
    const before = await versionOf()
    const write = await call("POST", secrets, {
      as: writer.as,
      headers: expecting(owner.userId),
      body: { key: "EXISTING", value: "typed on the owner's page" },
    })
    expect(write).toMatchObject({ status: 412, body: SOMEONE_ELSE })
    expect(await versionOf()).toBe(before)
    const created = await call("POST", "/api/projects", {
      as: writer.as,
      headers: expecting(owner.userId),
      body: { name: "Made on the wrong page" },
    })
    expect(created.status).toBe(412)
    const projects = await call("GET", "/api/projects", { as: writer.as })
    expect(JSON.stringify(projects.body)).not.toContain("Made on the wrong page")
    // A read would hand the owner's page the writer's data.
    const read = await call("GET", `${secrets}/EXISTING`, { as: writer.as, headers: expecting(owner.userId) })
    expect(read).toMatchObject({ status: 412, body: SOMEONE_ELSE })
    const audit = (await call("GET", "/api/projects/alpha/audit-log", { as: owner.as })).body as {
      auditLog: ReadonlyArray<{ action: string; userId: string }>
    }
    const secretEntries = audit.auditLog.filter((entry) => entry.action.startsWith("secret."))
    expect(secretEntries.length).toBeGreaterThan(0)
    expect(secretEntries.filter((entry) => entry.userId === writer.userId)).toEqual([])
  })

  it("answers `me` with 412 too, so a session check that names its person learns of the change", async () => {
    const me = await call("GET", "/api/auth/me", { as: writer.as, headers: expecting(owner.userId) })
    expect(me).toMatchObject({ status: 412, body: SOMEONE_ELSE })
  })

  it("goes on for the person named, raw or percent-encoded, and without the header", async () => {
    const named = await call("POST", secrets, {
      as: writer.as,
      headers: expecting(writer.userId),
      body: { key: "NAMED", value: "1" },
    })
    expect(named.status).toBe(201)
    const encoded = await call("GET", `${secrets}/NAMED`, {
      as: writer.as,
      headers: expecting(encodeURIComponent(writer.userId)),
    })
    expect(encoded.status).toBe(200)
    expect((await call("GET", `${secrets}/NAMED`, { as: writer.as })).status).toBe(200)
  })

  it("names nobody with a malformed or empty value: refused", async () => {
    for (const value of ["%zz", ""]) {
      const response = await call("GET", "/api/projects", { as: writer.as, headers: { [EXPECTED_USER_HEADER]: value } })
      expect(response.status).toBe(412)
    }
  })

  it("is not read with a bearer API key, which names its own caller", async () => {
    const response = await call("GET", `${secrets}/EXISTING`, {
      as: { key: writeKey.key },
      headers: expecting(owner.userId),
    })
    expect(response.status).toBe(200)
  })

  it("answers 401 when no session is left, as without the header", async () => {
    const gone = await service.signIn("gone@example.com")
    await call("POST", "/api/auth/logout", { as: gone.as })
    const response = await call("GET", "/api/projects", { as: gone.as, headers: expecting(gone.userId) })
    expect(response.status).toBe(401)
  })
})

describe("schemas: a request made for one person, sent with another's session", async () => {
  const service = schemasService()
  afterAll(() => service.runtime.dispose())
  const alice = await service.person("alice@example.com")
  const carol = await service.person("carol@example.com")
  await createPlatforms(alice, { web: ["1.0.0"] })
  const expecting = (userId: string) => ({ headers: { [EXPECTED_USER_HEADER]: encodeURIComponent(userId) } })

  it("is refused with 412 and saves nothing; the person named saves", async () => {
    const refused = await carol.request("PUT", "/api/web/1.0.0", {
      body: { content: { typedBy: "alice" } },
      ...expecting("dev:alice@example.com"),
    })
    expect(refused).toMatchObject({ status: 412, body: SOMEONE_ELSE })
    expect((await alice.request("GET", "/api/web/1.0.0")).status).toBe(404)
    const session = await carol.request("GET", "/api/auth/get-session", expecting("dev:alice@example.com"))
    expect(session.status).toBe(412)
    const saved = await carol.request("PUT", "/api/web/1.0.0", {
      body: { content: { typedBy: "carol" } },
      ...expecting("dev:carol@example.com"),
    })
    expect(saved.status).toBe(200)
    expect((await alice.request("GET", "/api/web/1.0.0")).body).toMatchObject({ content: { typedBy: "carol" } })
  })

  it("is not read with an API token", async () => {
    const { client } = await service.withToken(alice)
    const response = await client.request("GET", "/api/web/1.0.0", expecting("dev:carol@example.com"))
    expect(response.status).toBe(200)
  })
})
