/**
 * Row types of the secrets tables (migration `0004_secrets`). Times are ISO-8601 UTC text; sealed values and
 * wrapped data keys are the Cipher port's text blobs; credentials are SHA-256 hex.
 */
import type { Generated } from "kysely"

export interface SecretsProjectRow {
  id: string
  name: string
  slug: string
  owner_id: string
  /** `cdk1.…`: the project's current data key, wrapped by the master key. */
  data_key: string
  /** The version of `data_key` (migration `0008_secrets_data_key_versions`): 1 at creation. */
  data_key_version: number
  created_at: string
}

/** An older version of a project's data key (migration `0008_secrets_data_key_versions`). */
export interface SecretsDataKeyRow {
  project_id: string
  version: number
  /** `cdk1.…`, wrapped by the master key. */
  data_key: string
}

/** A data-key rotation under way (migration `0015_secrets_data_key_rotations`). */
export interface SecretsDataKeyRotationRow {
  project_id: string
  /** The version the project's data key was at when the rotation began. */
  from_version: number
}

export interface SecretsMemberRow {
  project_id: string
  user_id: string
  /** `owner`, `write` or `read`. */
  role: string
  created_at: string
}

export interface SecretsInviteRow {
  id: string
  project_id: string
  role: string
  token_hash: string
  created_by: string
  created_at: string
  expires_at: string
  used_at: string | null
  used_by: string | null
}

export interface SecretsEnvironmentRow {
  id: string
  project_id: string
  name: string
  created_at: string
}

export interface SecretsSecretRow {
  id: string
  environment_id: string
  key: string
  /** The current version. */
  version: number
  /** 1 when the current version's value is the empty string (`0014`). */
  empty: number
  created_at: string
  updated_at: string
}

export interface SecretsSecretVersionRow {
  secret_id: string
  version: number
  /**
   * `csv2.<data key version>.…`: sealed under that version of the project's data key, bound to project,
   * environment, secret id, key and version; or `csv1.…` (version 1, without the secret id) from before `0008`.
   */
  value: string
  user_id: string | null
  created_at: string
  /** The version a restore brought back; null for an ordinary write and for rows from before `0011`. */
  restored_from: number | null
}

export interface SecretsApiKeyRow {
  id: string
  project_id: string
  user_id: string
  name: string
  key_prefix: string
  key_hash: string
  scope: string
  expires_at: string | null
  last_used_at: string | null
  created_at: string
}

export interface SecretsAuditLogRow {
  id: string
  project_id: string
  environment_id: string | null
  user_id: string
  user_email: string
  /** `Accounts.emailKey(user_email)`, for the log's `user` filter (migration `0009_secrets_audit_filters`). */
  user_email_key: string
  action: string
  target_key: string
  ip_address: string | null
  created_at: string
  /**
   * The API key the person acted through and its name then, both null for a session and for rows from before
   * migration `0012_secrets_audit_api_key`.
   */
  api_key_id: string | null
  api_key_name: string | null
  /** The order of appends (migration `0007_secrets_audit_sequence`): given by the database, never by the store. */
  seq: Generated<number>
}

export interface SecretsTables {
  secrets_projects: SecretsProjectRow
  secrets_data_keys: SecretsDataKeyRow
  secrets_data_key_rotations: SecretsDataKeyRotationRow
  secrets_members: SecretsMemberRow
  secrets_invites: SecretsInviteRow
  secrets_environments: SecretsEnvironmentRow
  secrets_secrets: SecretsSecretRow
  secrets_secret_versions: SecretsSecretVersionRow
  secrets_api_keys: SecretsApiKeyRow
  secrets_audit_log: SecretsAuditLogRow
}
