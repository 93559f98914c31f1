/**
 * Who may delete (seed 000 §3 and §5), table-driven over HTTP: deleting a version or a platform listed in
 * `OIDC_PLATFORM_EDITORS` needs one of its groups as well as the admin permission, admins exempt, on both dashboard
 * delete endpoints and for versions left out of `POST /api/{platform}`. A refused deletion changes nothing.
 */

import { type Client, createPlatforms, useSchemasServices } from "@coffer/test-kit/schemasService"
import { describe, expect, it } from "vitest"

const service = useSchemasServices()

type Action = "delete version" | "delete platform" | "omit from versions list"

const attempt = (client: Client, action: Action, platform: string) => {
  switch (action) {
    case "delete version":
      return client.request("DELETE", `/api/_ui/v1/platforms/${platform}/versions/2.0.0`)
    case "delete platform":
      return client.request("DELETE", `/api/_ui/v1/platforms/${platform}`)
    case "omit from versions list":
      return client.request("POST", `/api/${platform}`, { body: { name: platform, versions: ["1.0.0"] } })
  }
}

const actions: ReadonlyArray<Action> = ["delete version", "delete platform", "omit from versions list"]

interface Row {
  readonly settings: Record<string, string>
  readonly groups: ReadonlyArray<string>
  readonly platform: "ios" | "web"
  readonly status: 200 | 201 | 403
}

const onlyPlatformEditors = { OIDC_PLATFORM_EDITORS: "ios:mobile" }
const withAdmins = { OIDC_ADMIN_GROUP: "admins", OIDC_PLATFORM_EDITORS: "ios:mobile" }
const withEditors = { OIDC_EDITOR_GROUP: "editors", OIDC_PLATFORM_EDITORS: "ios:mobile" }

// `200` stands for success: the dashboard answers 200, `POST /api/{platform}` 201.
const rows: ReadonlyArray<Row> = [
  // The hole: with no admin group, manage equals write, and an editor outside `mobile` could delete ios.
  { settings: onlyPlatformEditors, groups: [], platform: "ios", status: 403 },
  { settings: onlyPlatformEditors, groups: ["other"], platform: "ios", status: 403 },
  { settings: onlyPlatformEditors, groups: ["mobile"], platform: "ios", status: 200 },
  { settings: onlyPlatformEditors, groups: [], platform: "web", status: 200 },
  // Admins are exempt from platform groups; platform editors without the admin permission delete nothing.
  { settings: withAdmins, groups: ["admins"], platform: "ios", status: 200 },
  { settings: withAdmins, groups: ["mobile"], platform: "ios", status: 403 },
  { settings: withAdmins, groups: ["mobile"], platform: "web", status: 403 },
  // Editors administer when no admin group is set, but a listed platform still needs its group.
  { settings: withEditors, groups: ["editors"], platform: "ios", status: 403 },
  { settings: withEditors, groups: ["editors", "mobile"], platform: "ios", status: 200 },
  { settings: withEditors, groups: ["editors"], platform: "web", status: 200 },
  { settings: withEditors, groups: ["mobile"], platform: "ios", status: 403 },
]

describe("deletions follow platform groups (OIDC_PLATFORM_EDITORS)", () => {
  for (const row of rows) {
    for (const action of actions) {
      const expected = row.status === 200 && action === "omit from versions list" ? 201 : row.status
      it(`${JSON.stringify(row.settings)}, groups [${row.groups}]: ${action} on ${row.platform} → ${expected}`, async () => {
        const { person } = service(row.settings)
        const owner = await person("owner@example.com", ["admins", "editors", "mobile"])
        await createPlatforms(owner, { ios: ["1.0.0", "2.0.0"], web: ["1.0.0", "2.0.0"] })
        const actor = await person("someone@example.com", row.groups)
        const response = await attempt(actor, action, row.platform)
        expect(response.status).toBe(expected)
        const after = await owner.request("GET", `/api/${row.platform}/versions`)
        if (expected === 403) {
          expect(response.body).toEqual({ error: expect.any(String) })
          expect(after).toMatchObject({ status: 200, body: ["1.0.0", "2.0.0"] })
        } else {
          expect(after).toMatchObject(action === "delete platform" ? { status: 404 } : { body: ["1.0.0"] })
        }
      })
    }
  }
})
