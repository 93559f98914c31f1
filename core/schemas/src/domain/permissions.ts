/**
 * What a signed-in person may do on the schemas service (seed 000 §5 "Roles"), from the groups recorded on
 * their session at sign-in and the roles settings as they are now. Pure functions, so that the HTTP layer can
 * evaluate them on every request (rule 1: changing a group setting narrows existing sessions at once) and the
 * use cases can share them with `GET /api/auth/get-session`.
 *
 * The roles table, row by row:
 * - No group setting: every signed-in user can edit and administer.
 * - `OIDC_EDITOR_GROUP`: only its members and admins can change configuration; others are view-only, and
 *   view-only people administer nothing either (deleting is a change of configuration).
 * - `OIDC_ADMIN_GROUP`: only its members can delete platforms or versions and manage API tokens.
 * - `OIDC_PLATFORM_EDITORS`: a write to a listed platform also needs one of its groups; members of the admin
 *   group are exempt (with no admin group set, nobody is); unlisted platforms are unaffected.
 *
 * Rule 3 follows from using the session's groups: a session from before a platform's groups were configured
 * carries none of them, so it cannot write that platform until its holder signs in again.
 */
/**
 * The roles settings (seed 000 §5): which groups of the roles claim may edit and administer. The host reads them
 * from `OIDC_ROLES_CLAIM`, `OIDC_EDITOR_GROUP`, `OIDC_ADMIN_GROUP` and `OIDC_PLATFORM_EDITORS`.
 */
export interface Roles {
  /** The sign-in token claim that lists the user's groups. */
  readonly claim: string
  /** When set, only its members (and admins) can change configuration. */
  readonly editorGroup: string | undefined
  /** When set, only its members can delete platforms or versions and manage API tokens. */
  readonly adminGroup: string | undefined
  /** Platform name to the groups allowed to write it (one of them is needed); unlisted platforms are unaffected. */
  readonly platformEditors: ReadonlyMap<string, ReadonlyArray<string>>
}

export interface Permissions {
  /** Whether the person can change configuration at all. */
  readonly write: boolean
  /** The admin permission: delete platforms or versions, manage API tokens. */
  readonly manage: boolean
  /** Platforms the person cannot change although `write` may be true (those of `OIDC_PLATFORM_EDITORS`). */
  readonly restricted: ReadonlyArray<string>
}

type Groups = ReadonlyArray<string>

const isAdmin = (groups: Groups, roles: Roles) => roles.adminGroup !== undefined && groups.includes(roles.adminGroup)

/** Whether the person can change configuration (any platform not restricted by `OIDC_PLATFORM_EDITORS`). */
export const canWrite = (groups: Groups, roles: Roles): boolean =>
  roles.editorGroup === undefined || groups.includes(roles.editorGroup) || isAdmin(groups, roles)

/** The admin permission. Without an admin group it goes with the right to change configuration. */
export const canManage = (groups: Groups, roles: Roles): boolean =>
  roles.adminGroup === undefined ? canWrite(groups, roles) : isAdmin(groups, roles)

/** Whether the person can change this platform: its versions, schemas and the platform itself. */
export const canWritePlatform = (groups: Groups, roles: Roles, platform: string): boolean => {
  if (!canWrite(groups, roles)) return false
  const editors = roles.platformEditors.get(platform)
  if (editors === undefined || isAdmin(groups, roles)) return true
  return editors.some((group) => groups.includes(group))
}

/**
 * The session's `permissions` (seed 000 §2 "Session permissions"). `restricted` lists, of `platforms` (by
 * default the platforms named in `OIDC_PLATFORM_EDITORS`), those the person cannot change, sorted.
 */
export const permissionsFor = (
  groups: Groups,
  roles: Roles,
  platforms: Iterable<string> = roles.platformEditors.keys(),
): Permissions => ({
  write: canWrite(groups, roles),
  manage: canManage(groups, roles),
  restricted: [...new Set(platforms)].filter((platform) => !canWritePlatform(groups, roles, platform)).sort(),
})
