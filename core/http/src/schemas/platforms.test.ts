/**
 * The platform and version data endpoints over HTTP (seed 000 §4): exact statuses, bodies and messages, the
 * version-string rules, kind handling, and omitted versions being deleted only by admins.
 */

import { quote } from "@coffer/kernel"
import { createPlatforms, useSchemasServices } from "@coffer/test-kit/schemasService"
import { describe, expect, it } from "vitest"

const service = useSchemasServices()

describe("GET /api/schemas, GET and POST /api/{platform}", () => {
  it("creates with 201 {ok: true}, lists name and versions, and reads one with its kind", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    expect(
      await ada.request("POST", "/api/ios", {
        body: { name: "ios", versions: ["1.0.0", "1.0.0+build.7"], kind: "ios", team: "mobile" },
      }),
    ).toMatchObject({ status: 201, body: { ok: true } })
    await createPlatforms(ada, { android: [] })
    expect(await ada.request("GET", "/api/schemas")).toMatchObject({
      status: 200,
      body: [
        { name: "android", versions: [] },
        { name: "ios", versions: ["1.0.0", "1.0.0+build.7"] },
      ],
    })
    expect((await ada.request("GET", "/api/schemas")).body).toEqual([
      { name: "android", versions: [] },
      { name: "ios", versions: ["1.0.0", "1.0.0+build.7"] },
    ])
    expect(await ada.request("GET", "/api/ios")).toEqual(
      expect.objectContaining({
        status: 200,
        body: { name: "ios", versions: ["1.0.0", "1.0.0+build.7"], kind: "ios" },
      }),
    )
    expect((await ada.request("GET", "/api/android")).body).toEqual({ name: "android", versions: [] })
    expect(await ada.request("GET", "/api/web")).toMatchObject({
      status: 404,
      body: { error: 'Platform "web" was not found' },
    })
  })

  it("keeps the kind when an update omits it; an invalid kind is 400", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await ada.request("POST", "/api/web", { body: { name: "web", versions: [], kind: "web" } })
    await ada.request("POST", "/api/web", { body: { name: "web", versions: ["1.0.0"] } })
    expect((await ada.request("GET", "/api/web")).body).toEqual({ name: "web", versions: ["1.0.0"], kind: "web" })
    for (const kind of ["tv", "", "WEB", 3, null]) {
      const response = await ada.request("POST", "/api/web", { body: { name: "web", versions: ["1.0.0"], kind } })
      expect(response.status).toBe(400)
      expect((response.body as { error: string }).error).toMatch(
        /^Invalid kind .*: expected one of ios, android, web, service, custom$/,
      )
    }
    expect((await ada.request("GET", "/api/web")).body).toMatchObject({ kind: "web" })
  })

  it("answers 400 JSON for bodies of the wrong shape", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ versions: [] }, 'Missing "name" in the request body'],
      [{ name: "ios" }, 'Missing "versions" in the request body'],
      [{ name: "ios", versions: "1.0.0" }, 'Invalid "versions" in the request body: Expected array'],
      [{ name: "ios", versions: [1] }, 'Invalid "versions[0]" in the request body: Expected string'],
      [[], "Request body must be a JSON object"],
      ["null", "Request body must be a JSON object"],
      [{ name: "android", versions: [] }, 'name "android" does not match the platform in the path, "ios"'],
      [{ name: "ios", versions: ["1.0.0", "1.0.0"] }, 'versions lists "1.0.0" more than once'],
    ]
    for (const [body, error] of cases) {
      expect(await ada.request("POST", "/api/ios", { body })).toMatchObject({ status: 400, body: { error } })
    }
    expect(await ada.request("POST", "/api/ios", { body: "{nope" })).toMatchObject({
      status: 400,
      body: { error: "Malformed JSON body" },
    })
    expect(
      await ada.request("POST", "/api/ios", { body: "{}", headers: { "content-type": "text/plain" } }),
    ).toMatchObject({ status: 415, body: { error: "Content-Type must be application/json" } })
    expect((await ada.request("GET", "/api/schemas")).body).toEqual([])
  })

  it("applies the version-string rules of seed 000 §2", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    const accepted = [
      "1.0.0",
      "1.0.0+20130313144700",
      "1.0.0-beta+exp.sha.5114f85",
      "2.0.0-rc.1",
      `1.0.0-${"a".repeat(122)}`,
    ]
    const rejected = [
      " 1.0.0",
      "1.0.0 ",
      "v1.0.0",
      "1.0",
      "1.0.0_beta",
      "1.0.0+",
      `1.0.0-${"a".repeat(123)}`,
      "01.0.0",
      "",
    ]
    for (const version of accepted) {
      expect((await ada.request("POST", "/api/ios", { body: { name: "ios", versions: [version] } })).status).toBe(201)
    }
    for (const version of rejected) {
      const response = await ada.request("POST", "/api/ios", { body: { name: "ios", versions: [version] } })
      expect(response.status).toBe(400)
      expect((response.body as { error: string }).error).toContain(`Invalid version ${quote(version)}`)
    }
  })

  it("quotes a long name, version, kind or reference cut short, never the whole request back", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    const long = "9".repeat(70_000)
    const cut = `"${"9".repeat(80)}"… (70000 characters)`
    const cases = [
      [ada.request("POST", "/api/ios/versions", { body: { version: long } }), `Invalid version ${cut}`],
      [ada.request("POST", "/api/_ui/v1/platforms", { body: { name: long } }), `Invalid platform name ${cut}`],
      [ada.request("POST", "/api/ios", { body: { name: long, versions: [] } }), `name ${cut} does not match`],
      [ada.request("PATCH", "/api/_ui/v1/platforms/ios", { body: { kind: long } }), `Invalid kind ${cut}`],
      [ada.request("PUT", "/api/ios/1.0.0", { body: { content: { "@extends": long } } }), `reference ${cut}`],
    ] as const
    for (const [answer, message] of cases) {
      const { status, body } = await answer
      expect(status).toBe(400)
      expect((body as { error: string }).error).toContain(message)
      expect([message, (body as { error: string }).error.length < 400]).toEqual([message, true])
    }
    const tokens = await ada.request("POST", "/api/_ui/v1/tokens", {
      body: { name: "ci", platforms: Array.from({ length: 2000 }, (_, i) => `gone-${i % 1000}`) },
    })
    expect(tokens.status).toBe(400)
    const named = Array.from({ length: 10 }, (_, i) => `"gone-${i}"`).join(", ")
    expect((tokens.body as { error: string }).error).toBe(
      `platforms names platforms that do not exist: ${named} and 990 more`,
    )
  })

  it("deletes versions left out of the list only for admins; 409 with blockedBy when a schema extends one", async () => {
    const { person } = service({ OIDC_ADMIN_GROUP: "admins" })
    const admin = await person("root@example.com", ["admins"])
    const editor = await person("ed@example.com")
    await createPlatforms(admin, { base: ["1.0.0", "2.0.0"], ios: ["1.0.0"] })
    await admin.request("PUT", "/api/ios/1.0.0", { body: { content: { "@extends": "base/1.0.0" } } })
    expect(await editor.request("POST", "/api/base", { body: { name: "base", versions: ["1.0.0"] } })).toMatchObject({
      status: 403,
      body: { error: "This requires the admin permission" },
    })
    expect(await admin.request("POST", "/api/base", { body: { name: "base", versions: ["2.0.0"] } })).toEqual(
      expect.objectContaining({
        status: 409,
        body: {
          error: 'Cannot delete version "1.0.0" of platform "base": 1 schema still extends it',
          blockedBy: [{ platform: "ios", version: "1.0.0", extends: "base/1.0.0" }],
        },
      }),
    )
    expect(await admin.request("POST", "/api/base", { body: { name: "base", versions: ["1.0.0"] } })).toMatchObject({
      status: 201,
    })
    expect((await admin.request("GET", "/api/base/versions")).body).toEqual(["1.0.0"])
    // Adding needs no admin.
    expect(
      await editor.request("POST", "/api/base", { body: { name: "base", versions: ["1.0.0", "1.1.0"] } }),
    ).toMatchObject({ status: 201 })
  })
})

describe("GET and POST /api/{platform}/versions", () => {
  it("lists versions, adds one, and says what is missing", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    expect(await ada.request("POST", "/api/ios/versions", { body: { version: "1.1.0+build.2" } })).toEqual(
      expect.objectContaining({ status: 201, body: { ok: true, reprocessed: [] } }),
    )
    // A schema whose range now selects the new (empty) version is named in the answer.
    await ada.request("POST", "/api/ios", { body: { name: "ios", versions: ["1.0.0", "1.1.0+build.2", "2.0.0"] } })
    await ada.request("PUT", "/api/ios/1.0.0", { body: { content: { base: true } } })
    await ada.request("PUT", "/api/ios/2.0.0", { body: { content: { "@extends": "ios/^1.0.0" } } })
    expect(await ada.request("POST", "/api/ios/versions", { body: { version: "1.2.0" } })).toEqual(
      expect.objectContaining({ status: 201, body: { ok: true, reprocessed: ["ios/2.0.0"] } }),
    )
    expect(await ada.request("GET", "/api/ios/versions")).toMatchObject({
      status: 200,
      body: ["1.0.0", "1.1.0+build.2", "1.2.0", "2.0.0"],
    })
    expect(await ada.request("POST", "/api/ios/versions", { body: {} })).toMatchObject({
      status: 400,
      body: { error: 'Missing "version" in the request body' },
    })
    expect(await ada.request("POST", "/api/ios/versions", { body: { version: 1 } })).toMatchObject({
      status: 400,
      body: { error: 'Invalid "version" in the request body: Expected string' },
    })
    expect((await ada.request("POST", "/api/ios/versions", { body: { version: "1.2" } })).status).toBe(400)
    expect(await ada.request("POST", "/api/web/versions", { body: { version: "1.0.0" } })).toMatchObject({
      status: 404,
      body: { error: 'Platform "web" was not found' },
    })
    expect(await ada.request("GET", "/api/web/versions")).toMatchObject({
      status: 404,
      body: { error: 'Platform "web" was not found' },
    })
  })

  it("adds a version with its schema, or nothing: 400 for a schema that cannot be saved, 409 for a version that exists", async () => {
    const { person } = service()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0", "2.0.0"] })
    await ada.request("PUT", "/api/ios/1.0.0", { body: { content: { base: true, url: "a" } } })
    await ada.request("PUT", "/api/ios/2.0.0", { body: { content: { "@extends": "ios/^1.0.0" } } })
    const content = { "@extends": "ios/1.0.0", url: "b" }
    expect(await ada.request("POST", "/api/ios/versions", { body: { version: "1.1.0", content } })).toEqual(
      expect.objectContaining({ status: 201, body: { ok: true, reprocessed: ["ios/2.0.0"] } }),
    )
    expect((await ada.request("GET", "/api/ios/1.1.0")).body).toEqual({
      content,
      dependencies: ["ios/1.0.0"],
      output: { base: true, url: "b" },
    })
    expect((await ada.request("GET", "/api/ios/2.0.0")).body).toMatchObject({ output: { base: true, url: "b" } })
    expect(
      await ada.request("POST", "/api/ios/versions", { body: { version: "1.2.0", content: { "@extends": 7 } } }),
    ).toMatchObject({ status: 400 })
    expect(await ada.request("POST", "/api/ios/versions", { body: { version: "1.2.0", content: null } })).toMatchObject(
      { status: 400 },
    )
    expect(await ada.request("POST", "/api/ios/versions", { body: { version: "1.1.0", content: {} } })).toMatchObject({
      status: 409,
      body: { error: 'Version "1.1.0" of platform "ios" exists already: save its schema instead' },
    })
    expect((await ada.request("GET", "/api/ios/versions")).body).toEqual(["1.0.0", "1.1.0", "2.0.0"])
    expect((await ada.request("GET", "/api/ios/1.1.0")).body).toMatchObject({ content })
  })
})

describe("roles on writes (seed 000 §5)", () => {
  it("lets editors and admins change, viewers only read, and platform editors guard their platform", async () => {
    const { person, setRoles } = service({ OIDC_EDITOR_GROUP: "editors", OIDC_PLATFORM_EDITORS: "ios:mobile" })
    const viewer = await person("view@example.com")
    const editor = await person("ed@example.com", ["editors"])
    const mobile = await person("mo@example.com", ["editors", "mobile"])
    expect(await viewer.request("POST", "/api/web", { body: { name: "web", versions: [] } })).toMatchObject({
      status: 403,
      body: { error: 'You do not have permission to change platform "web"' },
    })
    expect((await editor.request("POST", "/api/web", { body: { name: "web", versions: [] } })).status).toBe(201)
    expect((await editor.request("POST", "/api/ios", { body: { name: "ios", versions: [] } })).status).toBe(403)
    expect((await mobile.request("POST", "/api/ios", { body: { name: "ios", versions: [] } })).status).toBe(201)
    expect((await viewer.request("GET", "/api/ios")).status).toBe(200)
    // Settings are read on every request: narrowing them narrows existing sessions at once.
    setRoles({ claim: "groups", editorGroup: "nobody", adminGroup: undefined, platformEditors: new Map() })
    expect((await editor.request("POST", "/api/web/versions", { body: { version: "1.0.0" } })).status).toBe(403)
  })
})
