/**
 * The roles table of seed 000 §5, settings × groups × platforms, one row per case. Roles are parsed from an
 * environment exactly as the host reads them, so the settings' own syntax is part of what is checked.
 */
import { rolesFrom } from "@coffer/test-kit/http"
import { describe, expect, it } from "vitest"
import { canManage, canWritePlatform, permissionsFor } from "./permissions.js"

const roles = rolesFrom

const EDITOR = { OIDC_EDITOR_GROUP: "editors" }
const ADMIN = { OIDC_ADMIN_GROUP: "admins" }
const PLATFORMS = { OIDC_PLATFORM_EDITORS: "web:web-team; api:api-team,ops" }

const settings = {
  none: roles({}),
  editor: roles(EDITOR),
  admin: roles(ADMIN),
  "editor+admin": roles({ ...EDITOR, ...ADMIN }),
  platforms: roles(PLATFORMS),
  "admin+platforms": roles({ ...ADMIN, ...PLATFORMS }),
  all: roles({ ...EDITOR, ...ADMIN, ...PLATFORMS }),
}

type Row = readonly [
  setting: keyof typeof settings,
  groups: ReadonlyArray<string>,
  expected: { write: boolean; manage: boolean; web: boolean; api: boolean; other: boolean; restricted: string[] },
]

const T = true
const F = false

// biome-ignore format: a table reads best as one
const table: ReadonlyArray<Row> = [
  // Row 1: no group settings: everyone edits and administers.
  ["none", [], { write: T, manage: T, web: T, api: T, other: T, restricted: [] }],
  ["none", ["anything"], { write: T, manage: T, web: T, api: T, other: T, restricted: [] }],
  // Row 2: an editor group: its members (and admins) change configuration; others only look.
  ["editor", [], { write: F, manage: F, web: F, api: F, other: F, restricted: [] }],
  ["editor", ["viewers"], { write: F, manage: F, web: F, api: F, other: F, restricted: [] }],
  ["editor", ["editors"], { write: T, manage: T, web: T, api: T, other: T, restricted: [] }],
  // Row 3: an admin group: only its members administer; everyone still edits.
  ["admin", [], { write: T, manage: F, web: T, api: T, other: T, restricted: [] }],
  ["admin", ["admins"], { write: T, manage: T, web: T, api: T, other: T, restricted: [] }],
  ["editor+admin", [], { write: F, manage: F, web: F, api: F, other: F, restricted: [] }],
  ["editor+admin", ["editors"], { write: T, manage: F, web: T, api: T, other: T, restricted: [] }],
  ["editor+admin", ["admins"], { write: T, manage: T, web: T, api: T, other: T, restricted: [] }],
  // Row 4: platform editors: a listed platform needs one of its groups; unlisted ones are unaffected.
  ["platforms", [], { write: T, manage: T, web: F, api: F, other: T, restricted: ["api", "web"] }],
  ["platforms", ["web-team"], { write: T, manage: T, web: T, api: F, other: T, restricted: ["api"] }],
  ["platforms", ["ops"], { write: T, manage: T, web: F, api: T, other: T, restricted: ["web"] }],
  ["platforms", ["api-team", "web-team"], { write: T, manage: T, web: T, api: T, other: T, restricted: [] }],
  // With no admin group configured nobody is exempt, whatever their groups are called.
  ["platforms", ["admins"], { write: T, manage: T, web: F, api: F, other: T, restricted: ["api", "web"] }],
  // Admins are exempt from platform groups.
  ["admin+platforms", ["admins"], { write: T, manage: T, web: T, api: T, other: T, restricted: [] }],
  ["admin+platforms", ["web-team"], { write: T, manage: F, web: T, api: F, other: T, restricted: ["api"] }],
  // Everything at once: editing needs the editor group, and a listed platform its own group too.
  ["all", [], { write: F, manage: F, web: F, api: F, other: F, restricted: ["api", "web"] }],
  ["all", ["web-team"], { write: F, manage: F, web: F, api: F, other: F, restricted: ["api", "web"] }],
  ["all", ["editors"], { write: T, manage: F, web: F, api: F, other: T, restricted: ["api", "web"] }],
  ["all", ["editors", "web-team"], { write: T, manage: F, web: T, api: F, other: T, restricted: ["api"] }],
  ["all", ["admins"], { write: T, manage: T, web: T, api: T, other: T, restricted: [] }],
]

describe("schemas permissions (seed 000 §5 roles)", () => {
  it.each(table)("%s settings, groups %j", (setting, groups, expected) => {
    const current = settings[setting]
    const { restricted, ...flags } = expected
    expect(permissionsFor(groups, current)).toEqual({ write: flags.write, manage: flags.manage, restricted })
    expect(canManage(groups, current)).toBe(flags.manage)
    for (const platform of ["web", "api", "other"] as const) {
      expect(canWritePlatform(groups, current, platform), platform).toBe(flags[platform])
    }
  })

  it("narrows an existing session as soon as a group setting changes (rule 1)", () => {
    const groups = ["web-team"]
    expect(permissionsFor(groups, settings.none)).toEqual({ write: true, manage: true, restricted: [] })
    expect(permissionsFor(groups, settings.editor)).toEqual({ write: false, manage: false, restricted: [] })
  })

  it("keeps a session signed in before platform groups existed away from those platforms (rule 3)", () => {
    // Signed in when no group settings existed: the provider sent no groups, so none were recorded.
    const recorded: ReadonlyArray<string> = []
    expect(canWritePlatform(recorded, settings.platforms, "web")).toBe(false)
    expect(canWritePlatform(["web-team"], settings.platforms, "web")).toBe(true)
  })

  it("reports, among given platforms, each one that cannot be changed, once and sorted", () => {
    expect(permissionsFor(["editors"], settings.all, ["web", "other", "web", "api"]).restricted).toEqual(["api", "web"])
    expect(permissionsFor([], settings.editor, ["b", "a"]).restricted).toEqual(["a", "b"])
    expect(permissionsFor(["editors"], settings.editor, ["b", "a"]).restricted).toEqual([])
  })
})
