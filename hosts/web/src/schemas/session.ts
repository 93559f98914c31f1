/**
 * The signed-in person and what they may do (seed 000 §2 "Session permissions", §5 "Roles"), known app-wide once
 * `GET /api/auth/get-session` answered. The permissions only decide what the page offers; the service decides
 * again on every request, and a refusal it gives is shown where the person acted.
 */
import type { SchemasSession } from "../api/schemas.js"
import { sessionContext } from "../ui/session.js"

export const { Context: SessionContext, useSession } = sessionContext<SchemasSession>()

/** What the signed-in person may do, as the page asks it. */
export interface Abilities {
  /** Whether the person may change configuration at all. */
  readonly write: boolean
  /** The admin permission: deletes and API tokens. */
  readonly manage: boolean
  /** Why the person may not change `platform`, or `undefined` when they may. */
  readonly lockedReason: (platform: string) => string | undefined
}

export const VIEW_ONLY_REASON = "You can view the configuration but not change it: your groups give no editor rights."
export const RESTRICTED_REASON =
  "Only the groups listed for this platform (OIDC_PLATFORM_EDITORS) and admins may change it; you are in none of them."

export const abilitiesOf = (session: SchemasSession | undefined): Abilities => {
  const permissions = session?.permissions
  const write = permissions?.write === true
  const restricted = new Set(permissions?.restricted ?? [])
  return {
    write,
    manage: permissions?.manage === true,
    lockedReason: (platform) => (!write ? VIEW_ONLY_REASON : restricted.has(platform) ? RESTRICTED_REASON : undefined),
  }
}

export const useAbilities = (): Abilities => abilitiesOf(useSession().current)
