/**
 * The resources of seed 001 §2 as the use cases answer them: plain data with the seed's fields (and, where a
 * comment says so, one of ours beside them), ready to be sent as JSON. Each is a Schema, and its type is the
 * Schema's: the HTTP layer describes its answers with these same values in its OpenAPI document, and the
 * conformance test holds every answer to them. Stored records carry more (wrapped data keys, hashes) that must
 * never leave the core; these functions are where it is left behind.
 */
import { toIso, toIsoOrNull } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Accounts } from "./Accounts.js"
import { KeyScope, MemberRole, Role } from "./domain/permissions.js"
import type {
  ApiKeyRecord,
  AuditRecord,
  EnvironmentRecord,
  InviteRecord,
  ProjectRecord,
  SecretRecord,
} from "./SecretStore.js"

/** A moment as every view answers it (`toIso`), for the answers of `@coffer/http` that are not views. */
export const IsoTime = Schema.String.annotate({ description: "ISO 8601, UTC", format: "date-time" })
const Time = IsoTime
const Version = Schema.Int.annotate({ description: "1 on creation, one more on each update or restore" })

/** A project as its lists show it, with the caller's role in it. */
export const ProjectView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  ownerId: Schema.String,
  createdAt: Time,
  role: Role,
}).annotate({ identifier: "Project" })
export type ProjectView = typeof ProjectView.Type

export const projectView = (project: ProjectRecord, role: Role): ProjectView => ({
  id: project.id,
  name: project.name,
  slug: project.slug,
  ownerId: project.ownerId,
  createdAt: toIso(project.createdAt),
  role,
})

export const EnvironmentView = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  name: Schema.String,
  createdAt: Time,
}).annotate({ identifier: "Environment" })
export type EnvironmentView = typeof EnvironmentView.Type

export const environmentView = (environment: EnvironmentRecord): EnvironmentView => ({
  id: environment.id,
  projectId: environment.projectId,
  name: environment.name,
  createdAt: toIso(environment.createdAt),
})

/** A secret in a list: never its value, only whether it is empty. */
export const SecretListItem = Schema.Struct({
  id: Schema.String,
  key: Schema.String,
  version: Version,
  empty: Schema.Boolean.annotate({
    description:
      "Whether the current value is the empty string; told without reading the value, so a list is not audited. " +
      "Values saved before this was recorded count as empty by the length of what is stored.",
  }),
  createdAt: Time,
  updatedAt: Time,
}).annotate({ identifier: "SecretListItem" })
export type SecretListItem = typeof SecretListItem.Type

export const secretListItem = (secret: SecretRecord): SecretListItem => ({
  id: secret.id,
  key: secret.key,
  version: secret.version,
  empty: secret.empty,
  createdAt: toIso(secret.createdAt),
  updatedAt: toIso(secret.updatedAt),
})

export const SecretView = Schema.Struct({ ...SecretListItem.fields, value: Schema.String }).annotate({
  identifier: "Secret",
})
export type SecretView = typeof SecretView.Type

/**
 * An item of a secret's history: never the value; `userId` is null for versions written before history was kept.
 * `restoredFrom` is ours, beyond the seed's fields: without it a history cannot tell a restore from an update.
 */
export const VersionListItem = Schema.Struct({
  version: Version,
  createdAt: Time,
  userId: Schema.NullOr(Schema.String),
  userEmail: Schema.NullOr(Schema.String),
  restoredFrom: Schema.NullOr(Schema.Int).annotate({
    description:
      "The version this one brought back, when it was made by `POST …/versions/:n/restore` (that `n`); null for " +
      "an ordinary create or update, and for versions stored before restores were recorded",
  }),
}).annotate({ identifier: "SecretVersionListItem" })
export type VersionListItem = typeof VersionListItem.Type

export const VersionView = Schema.Struct({
  key: Schema.String,
  value: Schema.String,
  version: Version,
  createdAt: Time,
}).annotate({ identifier: "SecretVersion" })
export type VersionView = typeof VersionView.Type

export const MemberView = Schema.Struct({
  userId: Schema.String,
  email: Schema.NullOr(Schema.String),
  role: Role,
  createdAt: Time,
}).annotate({ identifier: "Member", description: "The owner is listed first, with role `owner`" })
export type MemberView = typeof MemberView.Type

/** A pending invite: never its token. */
export const InviteView = Schema.Struct({
  id: Schema.String,
  role: MemberRole,
  createdAt: Time,
  expiresAt: Time,
}).annotate({ identifier: "Invite" })
export type InviteView = typeof InviteView.Type

export const inviteView = (invite: InviteRecord): InviteView => ({
  id: invite.id,
  role: invite.role,
  createdAt: toIso(invite.createdAt),
  expiresAt: toIso(invite.expiresAt),
})

/** An API key as lists show it: its prefix, never the key nor its hash. */
export const ApiKeyView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  keyPrefix: Schema.String,
  scope: KeyScope,
  projectId: Schema.String,
  userId: Schema.String,
  userEmail: Schema.NullOr(Schema.String),
  lastUsedAt: Schema.NullOr(Time),
  expiresAt: Schema.NullOr(Time),
  createdAt: Time,
}).annotate({ identifier: "ApiKey" })
export type ApiKeyView = typeof ApiKeyView.Type

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

/** The API key an entry was made with, as it was then. */
export const AuditKeyView = Schema.Struct({
  id: Schema.String.annotate({ description: "The key's id, as `GET /api/api-keys` lists it; the `apiKey` filter" }),
  name: Schema.String.annotate({ description: "The key's name when the entry was made" }),
}).annotate({ identifier: "AuditEntryApiKey" })

/**
 * An audit entry: seed 001 §2's fields, and `apiKey`, ours beyond them: which API key the person acted through, so
 * that what a leaked key did can be told from what its holder did in the browser.
 */
export const AuditView = Schema.Struct({
  id: Schema.String,
  userId: Schema.String,
  userEmail: Schema.String,
  projectId: Schema.String,
  environmentId: Schema.NullOr(Schema.String),
  action: Schema.String,
  targetKey: Schema.String,
  ipAddress: Schema.NullOr(Schema.String),
  createdAt: Time,
  apiKey: Schema.NullOr(AuditKeyView).annotate({
    description:
      "The API key the person acted through (`Authorization: Bearer`), with its name at the time; null when they " +
      "acted with a session, and for entries recorded before keys were named in the log. Kept after the key is deleted",
  }),
}).annotate({ identifier: "AuditEntry" })
export type AuditView = typeof AuditView.Type

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
  apiKey: entry.apiKey,
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
