/**
 * The dashboard's platform endpoints and the audit log over HTTP (seed 000 §3, §4): creation with 201 and 409,
 * deletion with the admin permission and the 409 `{ error, blockedBy }` body, history removed, every deletion
 * and token change audited and readable page by page by admins.
 */

import { createPlatforms, saveSchema, useSchemasServices } from "@coffer/test-kit/schemasService"
import { describe, expect, it } from "vitest"

const service = useSchemasServices()

describe("POST /api/_ui/v1/platforms", () => {
  it("creates a platform with no versions (201), 409 when the name is taken, 400 for a bad kind or name", async () => {
    const { person, anonymous } = service({ OIDC_EDITOR_GROUP: "editors" })
    const editor = await person("ed@example.com", ["editors"])
    const viewer = await person("vi@example.com")
    expect(await editor.request("POST", "/api/_ui/v1/platforms", { body: { name: "web", kind: "web" } })).toEqual(
      expect.objectContaining({
        status: 201,
        body: { ok: true, platform: { name: "web", versions: [], kind: "web" } },
      }),
    )
    expect((await editor.request("GET", "/api/web")).body).toEqual({ name: "web", versions: [], kind: "web" })
    expect(await editor.request("POST", "/api/_ui/v1/platforms", { body: { name: "web" } })).toMatchObject({
      status: 409,
      body: { error: 'Platform "web" already exists' },
    })
    expect(
      (await editor.request("POST", "/api/_ui/v1/platforms", { body: { name: "tv", kind: "television" } })).status,
    ).toBe(400)
    expect((await editor.request("POST", "/api/_ui/v1/platforms", { body: { name: "a/b" } })).status).toBe(400)
    expect((await editor.request("POST", "/api/_ui/v1/platforms", { body: {} })).body).toEqual({
      error: 'Missing "name" in the request body',
    })
    expect((await viewer.request("POST", "/api/_ui/v1/platforms", { body: { name: "tv" } })).status).toBe(403)
    expect((await anonymous.request("POST", "/api/_ui/v1/platforms", { body: { name: "tv" } })).status).toBe(401)
  })
})

describe("GET /api/_ui/v1/platforms/{platform}", () => {
  const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

  it("answers each version's saved schema in summary (references, revision, last save), never its content", async () => {
    const { person } = service({ OIDC_EDITOR_GROUP: "editors", OIDC_ADMIN_GROUP: "admins" })
    const admin = await person("root@example.com", ["admins"])
    const editor = await person("ed@example.com", ["editors"])
    // Any signed-in person reads a platform (as `GET /api/{platform}`), a viewer included.
    const viewer = await person("vi@example.com")
    await createPlatforms(admin, { base: ["1.0.0", "2.0.0"], ios: ["1.0.0", "1.1.0-rc.1", "2.0.0+build.7"] })
    await saveSchema(admin, "base/1.0.0", { color: "red" })
    await saveSchema(admin, "ios/1.0.0", { "@extends": ["base/1.0.0", "base/^1.0.0"], secret: "not in a summary" })
    await saveSchema(editor, "ios/1.0.0", { "@extends": ["base/1.0.0", "base/^1.0.0"], size: 2 })
    await saveSchema(editor, "ios/2.0.0+build.7", { "@extends": "base" })
    const read = await viewer.request("GET", "/api/_ui/v1/platforms/ios")
    expect(read).toMatchObject({ status: 200 })
    expect(read.body).toEqual({
      name: "ios",
      kind: "custom",
      versions: ["1.0.0", "1.1.0-rc.1", "2.0.0+build.7"],
      schemas: [
        {
          version: "1.0.0",
          saved: true,
          dependencies: ["base/1.0.0", "base/^1.0.0"],
          revision: 2,
          savedAt: expect.stringMatching(ISO),
          savedBy: "ed@example.com",
        },
        { version: "1.1.0-rc.1", saved: false },
        {
          version: "2.0.0+build.7",
          saved: true,
          dependencies: ["base"],
          revision: 1,
          savedAt: expect.stringMatching(ISO),
          savedBy: "ed@example.com",
        },
      ],
    })
    expect(JSON.stringify(read.body)).not.toContain("not in a summary")
    // The next read follows a save and a deletion.
    await saveSchema(admin, "ios/1.1.0-rc.1", { "@extends": "ios/1.0.0" })
    expect(await admin.request("DELETE", "/api/_ui/v1/platforms/ios/versions/2.0.0+build.7")).toMatchObject({
      status: 200,
    })
    expect((await viewer.request("GET", "/api/_ui/v1/platforms/ios")).body).toMatchObject({
      versions: ["1.0.0", "1.1.0-rc.1"],
      schemas: [
        { version: "1.0.0", revision: 2 },
        { version: "1.1.0-rc.1", saved: true, dependencies: ["ios/1.0.0"], revision: 1, savedBy: "root@example.com" },
      ],
    })
  })

  it("answers 404 for a missing platform or a name no platform can have, 403 to a token, 401 without a session", async () => {
    const { person, anonymous, withToken } = service({ OIDC_ADMIN_GROUP: "admins" })
    const admin = await person("root@example.com", ["admins"])
    await createPlatforms(admin, { web: [] })
    expect((await admin.request("GET", "/api/_ui/v1/platforms/web")).body).toEqual({
      name: "web",
      kind: "custom",
      versions: [],
      schemas: [],
    })
    expect(await admin.request("GET", "/api/_ui/v1/platforms/nope")).toMatchObject({
      status: 404,
      body: { error: 'Platform "nope" was not found' },
    })
    expect(await admin.request("GET", "/api/_ui/v1/platforms/a%20b")).toMatchObject({
      status: 404,
      body: { error: 'Platform "a b" was not found' },
    })
    // A token is refused here even for a platform it may read through `GET /api/{platform}`.
    const { client: tokenClient } = await withToken(admin)
    expect((await tokenClient.request("GET", "/api/web")).status).toBe(200)
    expect(await tokenClient.request("GET", "/api/_ui/v1/platforms/web")).toMatchObject({ status: 403 })
    expect(await anonymous.request("GET", "/api/_ui/v1/platforms/web")).toMatchObject({ status: 401 })
  })
})

describe("DELETE /api/_ui/v1/platforms/{platform}[/versions/{version}]", () => {
  it("refuses with 409 and the blocking schemas, then deletes with history once unblocked", async () => {
    const { person } = service({ OIDC_ADMIN_GROUP: "admins" })
    const admin = await person("root@example.com", ["admins"])
    const editor = await person("ed@example.com")
    await createPlatforms(admin, { base: ["1.0.0", "2.0.0+b"], ios: ["1.0.0"], web: ["1.0.0"] })
    await saveSchema(admin, "base/2.0.0+b", { b: 2 })
    await saveSchema(admin, "ios/1.0.0", { "@extends": "base/^2.0.0" })
    await saveSchema(admin, "web/1.0.0", { "@extends": ["base", "ios/1.0.0"] })
    expect((await editor.request("DELETE", "/api/_ui/v1/platforms/base")).status).toBe(403)
    expect(await admin.request("DELETE", "/api/_ui/v1/platforms/base")).toEqual(
      expect.objectContaining({
        status: 409,
        body: {
          error: 'Cannot delete platform "base": 2 schemas still extend it',
          blockedBy: [
            { platform: "ios", version: "1.0.0", extends: "base/^2.0.0" },
            { platform: "web", version: "1.0.0", extends: "base" },
          ],
        },
      }),
    )
    expect(await admin.request("DELETE", "/api/_ui/v1/platforms/base/versions/2.0.0%2Bb")).toMatchObject({
      status: 409,
      body: { blockedBy: [{ platform: "ios" }, { platform: "web" }] },
    })
    // 1.0.0 is extended by nothing.
    expect(await admin.request("DELETE", "/api/_ui/v1/platforms/base/versions/1.0.0")).toMatchObject({
      status: 200,
      body: { ok: true },
    })
    expect(await admin.request("DELETE", "/api/_ui/v1/platforms/base/versions/1.0.0")).toMatchObject({
      status: 404,
      body: { error: 'Version "1.0.0" of platform "base" was not found' },
    })
    expect(await admin.request("DELETE", "/api/_ui/v1/platforms/nope")).toMatchObject({
      status: 404,
      body: { error: 'Platform "nope" was not found' },
    })
    await admin.request("DELETE", "/api/_ui/v1/platforms/web")
    await saveSchema(admin, "ios/1.0.0", {})
    expect(await admin.request("DELETE", "/api/_ui/v1/platforms/base")).toMatchObject({ status: 200 })
    expect((await admin.request("GET", "/api/schemas")).body).toEqual([{ name: "ios", versions: ["1.0.0"] }])
    // Recreated, it starts with nothing of the old one.
    await createPlatforms(admin, { base: ["2.0.0+b"] })
    expect((await admin.request("GET", "/api/base/2.0.0+b")).status).toBe(404)
  })
})

describe("GET /api/_ui/v1/audit", () => {
  it("lists deletions and token changes newest first, page by page, for admins only", async () => {
    const { person } = service({ OIDC_ADMIN_GROUP: "admins" })
    const admin = await person("root@example.com", ["admins"])
    const editor = await person("ed@example.com")
    await createPlatforms(admin, { ios: ["1.0.0", "2.0.0"], web: [] })
    const { record } = (await admin.request("POST", "/api/_ui/v1/tokens", { body: { name: "ci" } })).body as {
      record: { id: string }
    }
    await admin.request("DELETE", `/api/_ui/v1/tokens/${record.id}`)
    await admin.request("POST", "/api/ios", { body: { name: "ios", versions: ["2.0.0"] } })
    await admin.request("DELETE", "/api/_ui/v1/platforms/ios/versions/2.0.0")
    await admin.request("DELETE", "/api/_ui/v1/platforms/web")
    const all = await admin.request("GET", "/api/_ui/v1/audit")
    expect(all.status).toBe(200)
    const entries = (all.body as { entries: Array<Record<string, unknown>>; next: unknown }).entries
    expect(new Set(entries.map((entry) => `${entry.action} ${entry.target}`))).toEqual(
      new Set([
        `token.create ${record.id}`,
        `token.revoke ${record.id}`,
        "version.delete ios/1.0.0",
        "version.delete ios/2.0.0",
        "platform.delete web",
      ]),
    )
    for (const entry of entries) {
      expect(entry).toMatchObject({ id: expect.any(String), actor: "root@example.com", at: expect.any(String) })
    }
    const first = (await admin.request("GET", "/api/_ui/v1/audit?limit=2")).body as {
      entries: ReadonlyArray<{ id: string }>
      next: string
    }
    expect(first.entries).toHaveLength(2)
    const rest = (await admin.request("GET", `/api/_ui/v1/audit?limit=10&before=${encodeURIComponent(first.next)}`))
      .body as { entries: ReadonlyArray<{ id: string }>; next: unknown }
    expect(rest.entries).toHaveLength(3)
    expect(rest.next).toBeNull()
    expect([...first.entries, ...rest.entries].map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id))
    expect((await admin.request("GET", "/api/_ui/v1/audit?limit=abc")).status).toBe(400)
    expect((await admin.request("GET", "/api/_ui/v1/audit?before=x")).status).toBe(400)
    expect((await editor.request("GET", "/api/_ui/v1/audit")).status).toBe(403)
  })
})
