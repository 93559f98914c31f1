/**
 * Platform kinds on the dashboard over HTTP: `GET /api/_ui/v1/platforms` gives every platform's kind (`custom`
 * for records without one) and `PATCH /api/_ui/v1/platforms/{platform}` `{ kind }` changes it with the write rules
 * of any other change (editor group, platform groups, tokens refused), audited, and bad input changes nothing.
 */

import { createPlatforms, useSchemasServices } from "@coffer/test-kit/schemasService"
import { describe, expect, it } from "vitest"

const service = useSchemasServices()

const auditActions = async (admin: { request: (m: string, p: string) => Promise<{ body: unknown }> }) =>
  ((await admin.request("GET", "/api/_ui/v1/audit")).body as { entries: Array<Record<string, unknown>> }).entries
    .filter((entry) => entry.action === "platform.kind")
    .map(({ target, detail, actor }) => ({ target, detail, actor }))

describe("GET /api/_ui/v1/platforms", () => {
  it("lists every platform with its kind, Custom for records without one; sessions only", async () => {
    const { person, anonymous, withToken } = service({ OIDC_EDITOR_GROUP: "editors" })
    const editor = await person("ed@example.com", ["editors"])
    const viewer = await person("vi@example.com")
    await createPlatforms(editor, { web: ["1.0.0", "0.9.0"] })
    await editor.request("POST", "/api/_ui/v1/platforms", { body: { name: "app", kind: "ios" } })
    expect(await viewer.request("GET", "/api/_ui/v1/platforms")).toMatchObject({
      status: 200,
      body: [
        { name: "app", kind: "ios", versions: [] },
        { name: "web", kind: "custom", versions: ["0.9.0", "1.0.0"] },
      ],
    })
    // The data endpoints keep seed 000's shapes: a record without a kind has none there.
    expect((await viewer.request("GET", "/api/web")).body).toEqual({ name: "web", versions: ["0.9.0", "1.0.0"] })
    expect(await anonymous.request("GET", "/api/_ui/v1/platforms")).toMatchObject({
      status: 401,
      body: { error: "Authentication required" },
    })
    const { client: tokenClient } = await withToken(editor)
    expect(await tokenClient.request("GET", "/api/_ui/v1/platforms")).toMatchObject({
      status: 403,
      body: { error: "API tokens are not accepted on dashboard endpoints" },
    })
  })
})

describe("PATCH /api/_ui/v1/platforms/{platform}", () => {
  it("changes the kind (200 with the platform), audits it once, and a repeat changes nothing", async () => {
    const { person } = service()
    const editor = await person("ed@example.com")
    await createPlatforms(editor, { web: ["1.0.0"] })
    expect(await editor.request("PATCH", "/api/_ui/v1/platforms/web", { body: { kind: "web" } })).toMatchObject({
      status: 200,
      body: { ok: true, platform: { name: "web", kind: "web", versions: ["1.0.0"] } },
    })
    expect((await editor.request("GET", "/api/web")).body).toEqual({ name: "web", versions: ["1.0.0"], kind: "web" })
    await editor.request("PATCH", "/api/_ui/v1/platforms/web", { body: { kind: "web" } })
    await editor.request("PATCH", "/api/_ui/v1/platforms/web", { body: { kind: "service" } })
    expect(await auditActions(editor)).toEqual([
      { target: "web", detail: { from: "web", to: "service" }, actor: "ed@example.com" },
      { target: "web", detail: { from: null, to: "web" }, actor: "ed@example.com" },
    ])
  })

  it("refuses bad input with 400 and changes nothing", async () => {
    const { person } = service()
    const editor = await person("ed@example.com")
    await editor.request("POST", "/api/_ui/v1/platforms", { body: { name: "app", kind: "android" } })
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{}, 'Missing "kind" in the request body'],
      [{ kind: "television" }, 'Invalid kind "television": expected one of ios, android, web, service, custom'],
      [{ kind: null }, "Invalid kind of type null: expected one of ios, android, web, service, custom"],
      [{ kind: ["ios"] }, "Invalid kind of type object: expected one of ios, android, web, service, custom"],
      [{ kind: " ios" }, 'Invalid kind " ios": expected one of ios, android, web, service, custom'],
      [[], "Request body must be a JSON object"],
    ]
    for (const [body, error] of cases) {
      expect(await editor.request("PATCH", "/api/_ui/v1/platforms/app", { body })).toMatchObject({
        status: 400,
        body: { error },
      })
    }
    expect((await editor.request("PATCH", "/api/_ui/v1/platforms/app", { body: "{" })).status).toBe(400)
    expect(
      (
        await editor.request("PATCH", "/api/_ui/v1/platforms/app", {
          body: "kind=ios",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        })
      ).status,
    ).toBe(415)
    expect((await editor.request("GET", "/api/app")).body).toEqual({ name: "app", versions: [], kind: "android" })
    expect(await auditActions(editor)).toEqual([])
  })

  it("follows the write rules: 401 without a session, 403 for viewers, tokens and restricted platforms, 404", async () => {
    const { person, anonymous, withToken } = service({
      OIDC_EDITOR_GROUP: "editors",
      OIDC_ADMIN_GROUP: "admins",
      OIDC_PLATFORM_EDITORS: "ios:ios-team",
    })
    const admin = await person("root@example.com", ["admins"])
    const editor = await person("ed@example.com", ["editors"])
    const viewer = await person("vi@example.com")
    const iosEditor = await person("io@example.com", ["editors", "ios-team"])
    await createPlatforms(admin, { ios: [], web: [] })
    const patch = (client: typeof admin, platform: string, kind = "service") =>
      client.request("PATCH", `/api/_ui/v1/platforms/${platform}`, { body: { kind } })
    expect(await patch(anonymous, "web")).toMatchObject({ status: 401 })
    expect(await patch(viewer, "web")).toMatchObject({
      status: 403,
      body: { error: 'You do not have permission to change platform "web"' },
    })
    expect(await patch(editor, "ios")).toMatchObject({
      status: 403,
      body: { error: 'You do not have permission to change platform "ios"' },
    })
    const { client: tokenClient } = await withToken(admin)
    expect(await patch(tokenClient, "web")).toMatchObject({ status: 403 })
    expect(await patch(editor, "nope")).toMatchObject({ status: 404, body: { error: 'Platform "nope" was not found' } })
    expect(await patch(editor, "a%20b")).toMatchObject({ status: 404 })
    // Nothing above changed anything.
    expect((await admin.request("GET", "/api/_ui/v1/platforms")).body).toEqual([
      { name: "ios", kind: "custom", versions: [] },
      { name: "web", kind: "custom", versions: [] },
    ])
    expect(await patch(editor, "web", "web")).toMatchObject({ status: 200 })
    expect(await patch(iosEditor, "ios", "ios")).toMatchObject({ status: 200 })
    expect(await patch(admin, "ios", "custom")).toMatchObject({ status: 200, body: { platform: { kind: "custom" } } })
    // An explicit Custom is stored as such: the data endpoint now shows it.
    expect((await admin.request("GET", "/api/ios")).body).toEqual({ name: "ios", versions: [], kind: "custom" })
  })
})
