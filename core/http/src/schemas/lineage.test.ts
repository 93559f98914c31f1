/**
 * A version's history, ancestors and dependents over HTTP (dashboard, session only): revisions newest first and
 * paged, one revision with the content saved and the output that save produced (a later cascade leaves it
 * alone), the ancestors up to the roots with the source of every output value, and the dependents, which are
 * exactly what a save re-processes. Every refusal answers JSON and nothing changes.
 */

import { createPlatforms, saveSchema, useSchemasServices } from "@coffer/test-kit/schemasService"
import { describe, expect, it } from "vitest"

const service = useSchemasServices()

const V = "/api/_ui/v1/platforms"

describe("revisions", () => {
  it("lists every save newest first, page by page, and gives each revision's content and output", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    const bob = await person("bob@example.com")
    await createPlatforms(ada, { base: ["1.0.0"], ios: ["1.0.0+b.1", "2.0.0"] })
    await saveSchema(ada, "base/1.0.0", { colour: "red" })
    await saveSchema(ada, "ios/1.0.0+b.1", { "@extends": "base", size: 1 })
    await saveSchema(bob, "ios/1.0.0+b.1", { "@extends": "base", size: 2 })
    await saveSchema(ada, "ios/1.0.0+b.1", { size: 3 })
    const path = `${V}/ios/versions/1.0.0+b.1/revisions`
    const all = await bob.request("GET", path)
    expect(all).toMatchObject({ status: 200 })
    expect(all.body).toEqual({
      revisions: [3, 2, 1].map((revision) => ({
        revision,
        savedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        savedBy: revision === 2 ? "bob@example.com" : "ada@example.com",
        restoredFrom: null,
      })),
      next: null,
    })
    // `+` in a path segment is literal, and %2B names the same version.
    expect((await bob.request("GET", `${V}/ios/versions/1.0.0%2Bb.1/revisions`)).body).toEqual(all.body)
    const first = (await bob.request("GET", `${path}?limit=2`)).body as { revisions: Array<{ revision: number }> }
    expect(first).toMatchObject({ revisions: [{ revision: 3 }, { revision: 2 }], next: 2 })
    expect((await bob.request("GET", `${path}?limit=2&before=2`)).body).toMatchObject({
      revisions: [{ revision: 1 }],
      next: null,
    })
    // A full last page reaching revision 1 has nothing after it.
    expect((await bob.request("GET", `${path}?limit=1&before=2`)).body).toMatchObject({ next: null })
    expect(await bob.request("GET", `${path}/2`)).toMatchObject({
      status: 200,
      body: {
        revision: 2,
        savedBy: "bob@example.com",
        content: { "@extends": "base", size: 2 },
        output: { colour: "red", size: 2 },
      },
    })
    // A cascade changes the current output, never what a revision recorded.
    await saveSchema(ada, "base/1.0.0", { colour: "blue" })
    await saveSchema(ada, "ios/1.0.0+b.1", { "@extends": "base", size: 4 })
    await saveSchema(ada, "base/1.0.0", { colour: "green" })
    expect((await bob.request("GET", "/api/ios/1.0.0+b.1")).body).toMatchObject({ output: { colour: "green" } })
    expect((await bob.request("GET", `${path}/4`)).body).toMatchObject({ output: { colour: "blue", size: 4 } })
    expect((await bob.request("GET", `${path}/2`)).body).toMatchObject({ output: { colour: "red" } })
    // A version without a schema has no history yet.
    expect((await bob.request("GET", `${V}/ios/versions/2.0.0/revisions`)).body).toEqual({ revisions: [], next: null })
  })

  it("answers 400, 401, 403 and 404 as JSON", async () => {
    const { person, anonymous, withToken } = service({ OIDC_ADMIN_GROUP: "admins" })
    const admin = await person("root@example.com", ["admins"])
    await createPlatforms(admin, { ios: ["1.0.0"] })
    await saveSchema(admin, "ios/1.0.0", { a: 1 })
    const path = `${V}/ios/versions/1.0.0/revisions`
    for (const query of ["limit=0", "limit=201", "limit=abc", "limit=1e2", "before=0", "before=-1", "before=x"]) {
      expect(await admin.request("GET", `${path}?${query}`)).toMatchObject({
        status: 400,
        body: { error: expect.stringMatching(/^(limit|before) must be/) },
      })
    }
    expect(await admin.request("GET", `${path}/abc`)).toMatchObject({
      status: 400,
      body: { error: `revision must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}` },
    })
    expect(await admin.request("GET", `${path}/0`)).toMatchObject({ status: 400 })
    expect(await admin.request("GET", `${path}/2`)).toMatchObject({
      status: 404,
      body: { error: 'Revision 2 of "ios/1.0.0" was not found' },
    })
    expect(await admin.request("GET", `${V}/ios/versions/9.9.9/revisions`)).toMatchObject({
      status: 404,
      body: { error: 'Version "9.9.9" of platform "ios" was not found' },
    })
    expect(await admin.request("GET", `${V}/nope/versions/1.0.0/revisions/1`)).toMatchObject({
      status: 404,
      body: { error: 'Platform "nope" was not found' },
    })
    expect(await anonymous.request("GET", path)).toMatchObject({ status: 401 })
    const { client: tokenClient } = await withToken(admin)
    expect(await tokenClient.request("GET", `${path}/1`)).toMatchObject({ status: 403 })
    // The history goes with its version: deleted and added again, the version starts afresh.
    await admin.request("DELETE", `${V}/ios/versions/1.0.0`)
    await admin.request("POST", "/api/ios/versions", { body: { version: "1.0.0" } })
    expect((await admin.request("GET", path)).body).toEqual({ revisions: [], next: null })
  })
})

describe("restoring a revision", () => {
  it("saves the revision's content as the next revision, which names it, and answers as a save does", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    const bob = await person("bob@example.com")
    await createPlatforms(ada, { base: ["1.0.0"], ios: ["1.0.0"] })
    await saveSchema(ada, "base/1.0.0", { "@extends": "ios/1.0.0", size: 1 })
    await saveSchema(ada, "ios/1.0.0", { colour: "red" })
    await saveSchema(ada, "ios/1.0.0", { colour: "blue" })
    const path = `${V}/ios/versions/1.0.0/revisions`
    // The body may be left out: then it lands whatever the revision, as a save without expectedRevision.
    const restored = await bob.request("POST", `${path}/1/restore`)
    expect(restored).toMatchObject({
      status: 200,
      body: {
        ok: true,
        schema: { content: { colour: "red" }, dependencies: [], output: { colour: "red" } },
        revision: 3,
        reprocessed: ["base/1.0.0"],
      },
    })
    expect((await bob.request("GET", "/api/base/1.0.0")).body).toMatchObject({ output: { colour: "red", size: 1 } })
    const listed = (await bob.request("GET", path)).body as { revisions: Array<Record<string, unknown>> }
    expect(
      listed.revisions.map(({ revision, savedBy, restoredFrom }) => ({ revision, savedBy, restoredFrom })),
    ).toEqual([
      { revision: 3, savedBy: "bob@example.com", restoredFrom: 1 },
      { revision: 2, savedBy: "ada@example.com", restoredFrom: null },
      { revision: 1, savedBy: "ada@example.com", restoredFrom: null },
    ])
    expect((await bob.request("GET", `${path}/3`)).body).toMatchObject({ restoredFrom: 1, content: { colour: "red" } })
    // With expectedRevision, only on that revision.
    expect(await ada.request("POST", `${path}/2/restore`, { body: { expectedRevision: 3 } })).toMatchObject({
      status: 200,
      body: { revision: 4, schema: { content: { colour: "blue" } } },
    })
    expect(await bob.request("POST", `${path}/1/restore`, { body: { expectedRevision: 3 } })).toMatchObject({
      status: 409,
      body: { error: expect.stringContaining("revision 4"), revision: 4 },
    })
    expect(((await bob.request("GET", path)).body as { revisions: unknown[] }).revisions).toHaveLength(4)
  })

  it("refuses with 400, 401, 403 and 404 as JSON, and nothing changes", async () => {
    const { person, anonymous, withToken } = service({ OIDC_ADMIN_GROUP: "admins", OIDC_EDITOR_GROUP: "editors" })
    const admin = await person("root@example.com", ["admins"])
    const viewer = await person("viewer@example.com", [])
    await createPlatforms(admin, { ios: ["1.0.0", "2.0.0"] })
    await saveSchema(admin, "ios/1.0.0", { a: 1 })
    await saveSchema(admin, "ios/1.0.0", { a: 2 })
    const path = `${V}/ios/versions/1.0.0/revisions`
    const before = (await admin.request("GET", path)).body
    for (const bad of ["abc", "0", "1e0", "-1"]) {
      expect(await admin.request("POST", `${path}/${bad}/restore`)).toMatchObject({
        status: 400,
        body: { error: `revision must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}` },
      })
    }
    for (const body of [{ expectedRevision: -1 }, { expectedRevision: 1.5 }, { expectedRevision: "2" }, []]) {
      expect(await admin.request("POST", `${path}/1/restore`, { body })).toMatchObject({
        status: 400,
        body: { error: expect.any(String) },
      })
    }
    expect(await admin.request("POST", `${path}/3/restore`)).toMatchObject({
      status: 404,
      body: { error: 'Revision 3 of "ios/1.0.0" was not found' },
    })
    expect(await admin.request("POST", `${V}/ios/versions/2.0.0/revisions/1/restore`)).toMatchObject({
      status: 404,
      body: { error: 'Revision 1 of "ios/2.0.0" was not found' },
    })
    expect(await admin.request("POST", `${V}/nope/versions/1.0.0/revisions/1/restore`)).toMatchObject({
      status: 404,
      body: { error: 'Platform "nope" was not found' },
    })
    expect(await viewer.request("POST", `${path}/1/restore`)).toMatchObject({
      status: 403,
      body: { error: expect.any(String) },
    })
    expect(await anonymous.request("POST", `${path}/1/restore`)).toMatchObject({ status: 401 })
    const { client: tokenClient } = await withToken(admin)
    expect(await tokenClient.request("POST", `${path}/1/restore`)).toMatchObject({ status: 403 })
    expect((await admin.request("GET", path)).body).toEqual(before)
    expect((await admin.request("GET", "/api/ios/1.0.0")).body).toMatchObject({ content: { a: 2 } })
  })
})

describe("ancestors", () => {
  it("lists the schema and its ancestors up to the roots, and the source of every output value", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { base: ["1.0.0", "1.2.0"], mid: ["1.0.0"], ios: ["3.0.0"] })
    await saveSchema(ada, "base/1.2.0", { api: { url: "https://base", timeout: 5 }, tags: ["a"] })
    await saveSchema(ada, "mid/1.0.0", { "@extends": "base/^1.0.0", api: { timeout: 9 }, tags: ["m"] })
    await saveSchema(ada, "ios/3.0.0", { "@extends": ["mid", "base/~1.2.0"], name: "ios", api: { retries: 2 } })
    const found = await ada.request("GET", `${V}/ios/versions/3.0.0/ancestors`)
    expect(found).toMatchObject({ status: 200 })
    expect(found.body).toEqual({
      ancestors: [
        {
          platform: "ios",
          version: "3.0.0",
          parents: [
            { reference: "mid", platform: "mid", version: "1.0.0" },
            { reference: "base/~1.2.0", platform: "base", version: "1.2.0" },
          ],
          saved: true,
        },
        {
          platform: "mid",
          version: "1.0.0",
          parents: [{ reference: "base/^1.0.0", platform: "base", version: "1.2.0" }],
          saved: true,
        },
        { platform: "base", version: "1.2.0", parents: [], saved: true },
      ],
      provenance: [
        // base/~1.2.0 merges after mid, so base's values win where both set one.
        { path: ["api", "url"], source: "base/1.2.0" },
        { path: ["api", "timeout"], source: "base/1.2.0" },
        { path: ["api", "retries"], source: "ios/3.0.0" },
        { path: ["tags"], source: "base/1.2.0" },
        { path: ["name"], source: "ios/3.0.0" },
      ],
    })
    const output = (await ada.request("GET", "/api/ios/3.0.0")).body as { output: Record<string, unknown> }
    expect(output.output).toEqual({ api: { url: "https://base", timeout: 5, retries: 2 }, tags: ["a"], name: "ios" })
    // A version whose schema was never saved is marked: it merges in as `{}`.
    expect((await ada.request("GET", `${V}/base/versions/1.0.0/ancestors`)).body).toEqual({
      ancestors: [{ platform: "base", version: "1.0.0", parents: [], saved: false }],
      provenance: [],
    })
  })

  it("answers 401, 403 and 404 as JSON", async () => {
    const { person, anonymous, withToken } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    expect(await ada.request("GET", `${V}/ios/versions/2.0.0/ancestors`)).toMatchObject({ status: 404 })
    expect(await ada.request("GET", `${V}/nope/versions/1.0.0/dependents`)).toMatchObject({ status: 404 })
    expect(await ada.request("GET", `${V}/ios/versions/not%20a%20version/dependents`)).toMatchObject({ status: 404 })
    expect(await anonymous.request("GET", `${V}/ios/versions/1.0.0/ancestors`)).toMatchObject({ status: 401 })
    const { client: tokenClient } = await withToken(ada)
    expect(await tokenClient.request("GET", `${V}/ios/versions/1.0.0/dependents`)).toMatchObject({ status: 403 })
  })
})

describe("dependents", () => {
  it("lists every schema extending the version, directly or not, exactly as a save re-processes them", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { base: ["1.0.0", "2.0.0"], mid: ["1.0.0"], ios: ["1.0.0"], web: ["1.0.0"] })
    await saveSchema(ada, "base/1.0.0", { a: 1 })
    await saveSchema(ada, "mid/1.0.0", { "@extends": "base/^1.0.0" })
    await saveSchema(ada, "ios/1.0.0", { "@extends": ["mid", "base/1.0.0"] })
    // Extends the other version of base: not a dependent of base/1.0.0.
    await saveSchema(ada, "web/1.0.0", { "@extends": "base" })
    const found = await ada.request("GET", `${V}/base/versions/1.0.0/dependents`)
    expect(found).toMatchObject({
      status: 200,
      body: {
        dependents: [
          { platform: "mid", version: "1.0.0", extends: ["base/1.0.0"] },
          { platform: "ios", version: "1.0.0", extends: ["base/1.0.0", "mid/1.0.0"] },
        ],
      },
    })
    const saved = await saveSchema(ada, "base/1.0.0", { a: 2 })
    const listed = (found.body as { dependents: Array<{ platform: string; version: string }> }).dependents
    expect(saved.reprocessed).toEqual(listed.map((dependent) => `${dependent.platform}/${dependent.version}`))
    expect((await ada.request("GET", `${V}/base/versions/2.0.0/dependents`)).body).toEqual({
      dependents: [{ platform: "web", version: "1.0.0", extends: ["base/2.0.0"] }],
    })
    expect((await ada.request("GET", `${V}/web/versions/1.0.0/dependents`)).body).toEqual({ dependents: [] })
  })

  it("follows a chain level by level to its end", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    const depth = 60
    const spec: Record<string, Array<string>> = {}
    for (let level = 0; level < depth; level++) spec[`p${level}`] = ["1.0.0"]
    await createPlatforms(ada, spec)
    for (let level = 1; level < depth; level++)
      await saveSchema(ada, `p${level}/1.0.0`, { "@extends": `p${level - 1}` })
    const found = (await ada.request("GET", `${V}/p0/versions/1.0.0/dependents`)).body as {
      dependents: Array<{ platform: string; extends: Array<string> }>
    }
    expect(found.dependents.map((dependent) => dependent.platform)).toEqual(
      Array.from({ length: depth - 1 }, (_, index) => `p${index + 1}`),
    )
    expect(found.dependents.at(-1)?.extends).toEqual([`p${depth - 2}/1.0.0`])
  })
})
