/**
 * The secrets area's migrations, merged into the one ordered list in `./index.ts`.
 *
 * `0004_secrets` creates the Secrets service's data (seed 001), every table under the `secrets_` prefix:
 * - `secrets_projects`: the slug is unique (the seed's 409); `data_key` is the project's data key wrapped by the
 *   master key (`cdk1.…`); the owner is an account that cannot be deleted while it owns a project.
 * - `secrets_members`: one row per person and project, the owner included with role `owner`.
 * - `secrets_invites`: only the token's SHA-256, unique; `used_at` is set when accepted; withdrawn invites are
 *   deleted.
 * - `secrets_environments`: names unique within a project.
 * - `secrets_secrets` (one row per key, with its current version) and `secrets_secret_versions` (every version's
 *   sealed value, `csv1.…`). The primary key (secret, version) and the unique (environment, key) are what keep
 *   concurrent writers from doubling or losing a version; `user_id` is null for versions imported from before
 *   history was kept, and for versions whose author's account was removed.
 * - `secrets_api_keys`: only the key's SHA-256, unique; `key_prefix` is the first characters, for display.
 * - `secrets_audit_log`: no foreign keys on purpose, so that entries outlive the project, environment and
 *   person they name; `user_email` is the address at the time of the action. Ordered by (created_at, id).
 *
 * Deleting a project cascades to everything but the audit log; an environment to its secrets and versions; a
 * secret to its versions; an account to its memberships, invites and API keys.
 *
 * `0008_secrets_data_key_versions` gives data keys versions (`coffer keys rotate --data-keys`):
 * - `secrets_projects.data_key_version`: the version of `data_key`, the current key that seals new values. Every
 *   project that exists becomes version 1 with the key it has: nothing is rewritten, so nothing can be lost.
 * - `secrets_data_keys`: every older version of a project's data key, kept for the values sealed under it (the
 *   current one stays on the project row, where every request already reads it: no join on the hot path).
 *   Cascades with the project.
 * Sealed values from then on are `csv2.<data key version>.…` (bound to the secret's id too); `csv1` rows stay as
 * they are until a data-key rotation re-seals them.
 *
 * `0011_secrets_restored_from` adds `secrets_secret_versions.restored_from`: the version a restore brought back,
 * so that a history tells a restore from an update. Nullable, and null for every row already there: which of
 * those were restores was not kept with them (the audit log names the version brought back, not the one it made,
 * and outlives deleted secrets), so none is guessed.
 *
 * `0014_secrets_empty_values` adds `secrets_secrets.empty` (0/1): whether the current value is the empty string,
 * written with each version, so that a list says so without opening (or auditing) a value. Rows already there
 * are told by the length of their current version's sealed value, which is fixed for an empty one: the payload
 * after the header's last dot is the nonce and the tag alone, 40 bytes of XChaCha20-Poly1305 (the only cipher
 * Coffer has written with), 54 characters of base64url. Any other value's payload is longer.
 *
 * `0015_secrets_data_key_rotations` creates `secrets_data_key_rotations`: a row per project whose data-key rotation
 * is under way (`from_version`: the version it started from), kept until the whole run is done, so that a run
 * started again after an interruption resumes the projects it had got to instead of giving them yet another
 * version. Cascades with the project. Empty when created: no rotation is under way while a database migrates.
 */
import { type Kysely, type Migration, sql } from "kysely"

const m0004: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: a migration must not depend on today's `Tables` (see index.ts).
  up: async (db: Kysely<any>) => {
    await db.schema
      .createTable("secrets_projects")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("slug", "text", (column) => column.notNull().unique())
      .addColumn("owner_id", "text", (column) => column.notNull().references("secrets_users.id").onDelete("restrict"))
      .addColumn("data_key", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute()
    await db.schema
      .createTable("secrets_members")
      .addColumn("project_id", "text", (column) =>
        column.notNull().references("secrets_projects.id").onDelete("cascade"),
      )
      .addColumn("user_id", "text", (column) => column.notNull().references("secrets_users.id").onDelete("cascade"))
      .addColumn("role", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("secrets_members_pk", ["project_id", "user_id"])
      .execute()
    await db.schema.createIndex("secrets_members_user_id").on("secrets_members").column("user_id").execute()
    await db.schema
      .createTable("secrets_invites")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("project_id", "text", (column) =>
        column.notNull().references("secrets_projects.id").onDelete("cascade"),
      )
      .addColumn("role", "text", (column) => column.notNull())
      .addColumn("token_hash", "text", (column) => column.notNull().unique())
      .addColumn("created_by", "text", (column) => column.notNull().references("secrets_users.id").onDelete("cascade"))
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("expires_at", "text", (column) => column.notNull())
      .addColumn("used_at", "text")
      .addColumn("used_by", "text", (column) => column.references("secrets_users.id").onDelete("set null"))
      .execute()
    await db.schema.createIndex("secrets_invites_project_id").on("secrets_invites").column("project_id").execute()
    await db.schema
      .createTable("secrets_environments")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("project_id", "text", (column) =>
        column.notNull().references("secrets_projects.id").onDelete("cascade"),
      )
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addUniqueConstraint("secrets_environments_project_name", ["project_id", "name"])
      .execute()
    await db.schema
      .createTable("secrets_secrets")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("environment_id", "text", (column) =>
        column.notNull().references("secrets_environments.id").onDelete("cascade"),
      )
      .addColumn("key", "text", (column) => column.notNull())
      .addColumn("version", "integer", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("updated_at", "text", (column) => column.notNull())
      .addUniqueConstraint("secrets_secrets_environment_key", ["environment_id", "key"])
      .execute()
    await db.schema
      .createTable("secrets_secret_versions")
      .addColumn("secret_id", "text", (column) => column.notNull().references("secrets_secrets.id").onDelete("cascade"))
      .addColumn("version", "integer", (column) => column.notNull())
      .addColumn("value", "text", (column) => column.notNull())
      .addColumn("user_id", "text", (column) => column.references("secrets_users.id").onDelete("set null"))
      .addColumn("created_at", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("secrets_secret_versions_pk", ["secret_id", "version"])
      .execute()
    await db.schema
      .createTable("secrets_api_keys")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("project_id", "text", (column) =>
        column.notNull().references("secrets_projects.id").onDelete("cascade"),
      )
      .addColumn("user_id", "text", (column) => column.notNull().references("secrets_users.id").onDelete("cascade"))
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("key_prefix", "text", (column) => column.notNull())
      .addColumn("key_hash", "text", (column) => column.notNull().unique())
      .addColumn("scope", "text", (column) => column.notNull())
      .addColumn("expires_at", "text")
      .addColumn("last_used_at", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute()
    await db.schema.createIndex("secrets_api_keys_project_id").on("secrets_api_keys").column("project_id").execute()
    await db.schema.createIndex("secrets_api_keys_user_id").on("secrets_api_keys").column("user_id").execute()
    await db.schema
      .createTable("secrets_audit_log")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("project_id", "text", (column) => column.notNull())
      .addColumn("environment_id", "text")
      .addColumn("user_id", "text", (column) => column.notNull())
      .addColumn("user_email", "text", (column) => column.notNull())
      .addColumn("action", "text", (column) => column.notNull())
      .addColumn("target_key", "text", (column) => column.notNull())
      .addColumn("ip_address", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute()
    await db.schema
      .createIndex("secrets_audit_log_project_time")
      .on("secrets_audit_log")
      .columns(["project_id", "created_at", "id"])
      .execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    for (const table of [
      "secrets_audit_log",
      "secrets_api_keys",
      "secrets_secret_versions",
      "secrets_secrets",
      "secrets_environments",
      "secrets_invites",
      "secrets_members",
      "secrets_projects",
    ]) {
      await db.schema.dropTable(table).execute()
    }
  },
}

const m0008: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    await db.schema
      .alterTable("secrets_projects")
      .addColumn("data_key_version", "integer", (column) => column.notNull().defaultTo(1))
      .execute()
    await db.schema
      .createTable("secrets_data_keys")
      .addColumn("project_id", "text", (column) =>
        column.notNull().references("secrets_projects.id").onDelete("cascade"),
      )
      .addColumn("version", "integer", (column) => column.notNull())
      .addColumn("data_key", "text", (column) => column.notNull())
      .addPrimaryKeyConstraint("secrets_data_keys_pk", ["project_id", "version"])
      .execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.dropTable("secrets_data_keys").execute()
    await db.schema.alterTable("secrets_projects").dropColumn("data_key_version").execute()
  },
}

const m0011: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    await db.schema.alterTable("secrets_secret_versions").addColumn("restored_from", "integer").execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.alterTable("secrets_secret_versions").dropColumn("restored_from").execute()
  },
}

/** Characters of base64url holding an empty value's nonce (24 bytes) and tag (16 bytes). */
const EMPTY_PAYLOAD_LENGTH = 54

const m0014: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    await db.schema
      .alterTable("secrets_secrets")
      .addColumn("empty", "integer", (column) => column.notNull().defaultTo(0))
      .execute()
    // The character before the payload's last 54 is the header's dot only when the payload is 54 long.
    await sql`
      update secrets_secrets set empty = 1 where exists (
        select 1 from secrets_secret_versions v
        where v.secret_id = secrets_secrets.id and v.version = secrets_secrets.version
          and substr(v.value, length(v.value) - ${sql.lit(EMPTY_PAYLOAD_LENGTH)}, 1) = '.'
      )`.execute(db)
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.alterTable("secrets_secrets").dropColumn("empty").execute()
  },
}

const m0015: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  up: async (db: Kysely<any>) => {
    await db.schema
      .createTable("secrets_data_key_rotations")
      .addColumn("project_id", "text", (column) =>
        column.primaryKey().references("secrets_projects.id").onDelete("cascade"),
      )
      .addColumn("from_version", "integer", (column) => column.notNull())
      .execute()
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  down: async (db: Kysely<any>) => {
    await db.schema.dropTable("secrets_data_key_rotations").execute()
  },
}

export const secretsMigrations: Readonly<Record<string, Migration>> = {
  "0004_secrets": m0004,
  "0008_secrets_data_key_versions": m0008,
  "0011_secrets_restored_from": m0011,
  "0014_secrets_empty_values": m0014,
  "0015_secrets_data_key_rotations": m0015,
}
