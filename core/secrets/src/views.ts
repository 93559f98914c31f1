/**
 * The resources of seed 001 §2 as the use cases answer them: plain data with exactly the seed's fields, ready to
 * be sent as JSON. Stored records carry more (wrapped data keys, hashes) that must never leave the core; these
 * functions are where it is left behind.
 */
import { toIso, toIsoOrNull } from "@coffer/kernel"
import { Effect } from "effect"
import { Accounts } from "./Accounts.js"
import type { Role } from "./domain/permissions.js"
import type {
  ApiKeyRecord,
  AuditRecord,
  EnvironmentRecord,
  InviteRecord,
  ProjectRecord,
  SecretRecord,
} from "./SecretStore.js"

export interface ProjectView {
  readonly id: string
  readonly name: string
  readonly slug: string
  readonly ownerId: string
  readonly createdAt: string
  readonly role: Role
}

export const projectView = (project: ProjectRecord, role: Role): ProjectView => ({
  id: project.id,
  name: project.name,
  slug: project.slug,
  ownerId: project.ownerId,
  createdAt: toIso(project.createdAt),
  role,
})

export interface EnvironmentView {
  readonly id: string
  readonly projectId: string
  readonly name: string
  readonly createdAt: string
}

export const environmentView = (environment: EnvironmentRecord): EnvironmentView => ({
  id: environment.id,
  projectId: environment.projectId,
  name: environment.name,
  createdAt: toIso(environment.createdAt),
})

export interface SecretListItem {
  readonly id: string
  readonly key: string
  readonly version: number
  readonly createdAt: string
  readonly updatedAt: string
}

export const secretListItem = (secret: SecretRecord): SecretListItem => ({
  id: secret.id,
  key: secret.key,
  version: secret.version,
  createdAt: toIso(secret.createdAt),
  updatedAt: toIso(secret.updatedAt),
})

export interface SecretView extends SecretListItem {
  readonly value: string
}

export interface VersionListItem {
  readonly version: number
  readonly createdAt: string
  readonly userId: string | null
  readonly userEmail: string | null
}

export interface VersionView {
  readonly key: string
  readonly value: string
  readonly version: number
  readonly createdAt: string
}

export interface MemberView {
  readonly userId: string
  readonly email: string | null
  readonly role: Role
  readonly createdAt: string
}

export interface InviteView {
  readonly id: string
  readonly role: string
  readonly createdAt: string
  readonly expiresAt: string
}

export const inviteView = (invite: InviteRecord): InviteView => ({
  id: invite.id,
  role: invite.role,
  createdAt: toIso(invite.createdAt),
  expiresAt: toIso(invite.expiresAt),
})

export interface ApiKeyView {
  readonly id: string
  readonly name: string
  readonly keyPrefix: string
  readonly scope: string
  readonly projectId: string
  readonly userId: string
  readonly userEmail: string | null
  readonly lastUsedAt: string | null
  readonly expiresAt: string | null
  readonly createdAt: string
}

export const apiKeyView = (key: ApiKeyRecord, userEmail: string | null): ApiKeyView => ({
  id: key.id,
  name: key.name,
  keyPrefix: key.keyPrefix,
  scope: key.scope,
  projectId: key.projectId,
  userId: key.userId,
  userEmail,
  lastUsedAt: toIsoOrNull(key.lastUsedAt),
  expiresAt: toIsoOrNull(key.expiresAt),
  createdAt: toIso(key.createdAt),
})

export interface AuditView {
  readonly id: string
  readonly userId: string
  readonly userEmail: string
  readonly projectId: string
  readonly environmentId: string | null
  readonly action: string
  readonly targetKey: string
  readonly ipAddress: string | null
  readonly createdAt: string
}

export const auditView = (entry: AuditRecord): AuditView => ({
  id: entry.id,
  userId: entry.userId,
  userEmail: entry.userEmail,
  projectId: entry.projectId,
  environmentId: entry.environmentId,
  action: entry.action,
  targetKey: entry.targetKey,
  ipAddress: entry.ipAddress,
  createdAt: toIso(entry.createdAt),
})

/**
 * The current e-mail of each person, by id, each looked up once. People are kept by the Accounts port, not by
 * the SecretStore, so lists that show e-mails (members, history, API keys) ask it; `null` for an id it does not
 * know (an account removed by an operator).
 */
export const emailsOf = Effect.fnUntraced(function* (userIds: ReadonlyArray<string | null>) {
  const accounts = yield* Accounts
  const emails = new Map<string, string | null>()
  for (const id of userIds) {
    if (id === null || emails.has(id)) continue
    const user = yield* accounts.findById(id)
    emails.set(id, user?.email ?? null)
  }
  return (id: string | null): string | null => (id === null ? null : (emails.get(id) ?? null))
})
