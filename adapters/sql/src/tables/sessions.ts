/**
 * Row types of the sessions tables and of the secrets accounts (migration `0002_sessions`). Times are
 * ISO-8601 UTC text; `groups` is a JSON array of strings.
 */

/** One row of `schemas_sessions` or `secrets_sessions`; `id` is the SHA-256 (hex) of the cookie value. */
export interface SessionRow {
  id: string
  user_id: string
  email: string
  groups: string
  issuer: string | null
  subject: string | null
  provider_session_id: string | null
  created_at: string
  expires_at: string
}

/** An account of the secrets service. */
export interface SecretsUserRow {
  id: string
  /** As the identity provider gave it, for display. */
  email: string
  /** `Accounts.emailKey(email)`: unique, for case-insensitive lookups. */
  email_key: string
  created_at: string
}

/** An identity-provider identity (issuer + subject) that signs in as one user. */
export interface SecretsIdentityRow {
  issuer: string
  subject: string
  user_id: string
  created_at: string
}

export interface SessionTables {
  schemas_sessions: SessionRow
  secrets_sessions: SessionRow
  secrets_users: SecretsUserRow
  secrets_identities: SecretsIdentityRow
}
