/**
 * How the secrets tables' rows (migration `0004_secrets`) become the port's records and back. Shared by the SQL
 * secret store's parts; nothing here runs a statement.
 *
 * Times are stored as ISO 8601 text (fixed width, so the database compares them as instants) and cross the port
 * as epoch milliseconds.
 */
import { fromIso, fromIsoOrNull, toIso } from "@coffer/kernel"
import {
  Accounts,
  type AuditAction,
  type KeyScope,
  type MemberRole,
  type Role,
  type SecretStore,
} from "@coffer/secrets"
import type { Selectable } from "kysely"
import type {
  SecretsApiKeyRow,
  SecretsAuditLogRow,
  SecretsEnvironmentRow,
  SecretsInviteRow,
  SecretsProjectRow,
  SecretsSecretRow,
} from "../tables/secrets.js"
import type { SecretsUserRow } from "../tables/sessions.js"

export const toProject = (row: SecretsProjectRow): SecretStore.ProjectRecord => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  ownerId: row.owner_id,
  createdAt: fromIso(row.created_at),
  dataKey: row.data_key,
  dataKeyVersion: Number(row.data_key_version),
})

export const toEnvironment = (row: SecretsEnvironmentRow): SecretStore.EnvironmentRecord => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  createdAt: fromIso(row.created_at),
})

export const toInvite = (row: SecretsInviteRow): SecretStore.InviteRecord => ({
  id: row.id,
  projectId: row.project_id,
  role: row.role as MemberRole,
  tokenHash: row.token_hash,
  createdBy: row.created_by,
  createdAt: fromIso(row.created_at),
  expiresAt: fromIso(row.expires_at),
  usedAt: fromIsoOrNull(row.used_at),
})

export const toSecret = (row: SecretsSecretRow): SecretStore.SecretRecord => ({
  id: row.id,
  environmentId: row.environment_id,
  key: row.key,
  version: Number(row.version),
  empty: Number(row.empty) === 1,
  createdAt: fromIso(row.created_at),
  updatedAt: fromIso(row.updated_at),
})

export const toUser = (row: Pick<SecretsUserRow, "id" | "email" | "created_at">): Accounts.User => ({
  id: row.id,
  email: row.email,
  createdAt: fromIso(row.created_at),
})

export const toApiKey = (row: SecretsApiKeyRow): SecretStore.ApiKeyRecord => ({
  id: row.id,
  projectId: row.project_id,
  userId: row.user_id,
  name: row.name,
  keyPrefix: row.key_prefix,
  keyHash: row.key_hash,
  scope: row.scope as KeyScope,
  expiresAt: fromIsoOrNull(row.expires_at),
  lastUsedAt: fromIsoOrNull(row.last_used_at),
  createdAt: fromIso(row.created_at),
})

export const toAudit = (row: Selectable<SecretsAuditLogRow>): SecretStore.AuditRecord => ({
  id: row.id,
  projectId: row.project_id,
  environmentId: row.environment_id,
  userId: row.user_id,
  userEmail: row.user_email,
  action: row.action as AuditAction,
  targetKey: row.target_key,
  ipAddress: row.ip_address,
  // Both or neither (migration `0012_secrets_audit_api_key`): rows from before it have neither.
  apiKey: row.api_key_id === null ? null : { id: row.api_key_id, name: row.api_key_name ?? "" },
  createdAt: fromIso(row.created_at),
})

/** The audit log's columns a store writes (the database numbers `seq`), in the order an insert from a select fills them. */
export const AUDIT_COLUMNS = [
  "id",
  "project_id",
  "environment_id",
  "user_id",
  "user_email",
  "user_email_key",
  "action",
  "target_key",
  "ip_address",
  "created_at",
  "api_key_id",
  "api_key_name",
] as const satisfies ReadonlyArray<keyof SecretsAuditLogRow>

/** An audit record as those columns' values. */
export type AuditValues = { readonly [Column in (typeof AUDIT_COLUMNS)[number]]: SecretsAuditLogRow[Column] }

export const auditRow = (entry: SecretStore.AuditRecord): AuditValues => ({
  ...auditDraftRow(entry),
  project_id: entry.projectId,
  environment_id: entry.environmentId,
})

/** A record's values but its project and environment, which `readSecretAt` takes from the row it finds. */
export type AuditDraftValues = Omit<AuditValues, "project_id" | "environment_id">

export const auditDraftRow = (
  entry: Omit<SecretStore.AuditRecord, "projectId" | "environmentId">,
): AuditDraftValues => ({
  id: entry.id,
  user_id: entry.userId,
  user_email: entry.userEmail,
  user_email_key: Accounts.emailKey(entry.userEmail),
  action: entry.action,
  target_key: entry.targetKey,
  ip_address: entry.ipAddress,
  created_at: toIso(entry.createdAt),
  api_key_id: entry.apiKey?.id ?? null,
  api_key_name: entry.apiKey?.name ?? null,
})

/** The columns a read brings for the version it asked for (all null when there is no such version). */
export interface SealedColumns {
  readonly sealed_version: number | string | null
  readonly sealed_value: string | null
  readonly sealed_user_id: string | null
  readonly sealed_created_at: string | null
}

export const sealedOf = (row: SealedColumns): SecretStore.SealedVersion | undefined =>
  row.sealed_version === null || row.sealed_value === null || row.sealed_created_at === null
    ? undefined
    : {
        version: Number(row.sealed_version),
        value: row.sealed_value,
        userId: row.sealed_user_id,
        createdAt: fromIso(row.sealed_created_at),
      }

export const changed = (result: { readonly numUpdatedRows?: bigint; readonly numDeletedRows?: bigint }) =>
  (result.numUpdatedRows ?? result.numDeletedRows ?? 0n) > 0n

export const projectColumns = [
  "secrets_projects.id",
  "secrets_projects.name",
  "secrets_projects.slug",
  "secrets_projects.owner_id",
  "secrets_projects.data_key",
  "secrets_projects.data_key_version",
  "secrets_projects.created_at",
] as const

export const toAccess = (row: SecretsProjectRow & { role: string }): SecretStore.ProjectAccess => ({
  project: toProject(row),
  role: row.role as Role,
})
