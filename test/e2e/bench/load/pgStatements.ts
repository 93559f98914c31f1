/**
 * What the Postgres reference (`pgReference.mjs`) runs: the secret store's own hot statements (`SqlSecretStatements`),
 * compiled here for Postgres with each value's place named, and the fixed values of the bench project read from the
 * database the host serves. So the reference sends the very statements Coffer sends, and follows them when they change.
 */
import { SqlSecretStatements, type Tables } from "@coffer/adapter-sql"
import { Kysely, PostgresDialect } from "kysely"
import pg from "pg"
import type { PgReferenceOptions } from "./load.js"

/** A value's place: the compiled statement carries it where the parameter `name` goes. */
class Slot {
  constructor(readonly param: string) {}
}

/** Params whose every value is its own place. */
const places = new Proxy({}, { get: (_, name) => new Slot(String(name)) }) as never

const { reach, writes } = SqlSecretStatements

const STATEMENTS = {
  readAtAudited: reach.readAtAudited,
  readAtAuditedBatch: reach.readAtAuditedBatch,
  projectEnvironmentSecret: reach.projectEnvironmentSecret,
  projectEnvironmentSecretBatch: reach.projectEnvironmentSecretBatch,
  createAudited: writes.createAudited,
  advanceAudited: writes.advanceAudited,
  writeAuditedBatch: writes.audited,
}

/** The reference's options for the bench project `slug` of `email` on `databaseUrl`. */
export const pgReferenceOptions = async (
  databaseUrl: string,
  slug: string,
  email: string,
  environment: string,
): Promise<PgReferenceOptions> => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) })
  try {
    const project = await db
      .selectFrom("secrets_projects as p")
      .innerJoin("secrets_members as m", "m.project_id", "p.id")
      .innerJoin("secrets_users as u", "u.id", "m.user_id")
      .select(["p.id", "m.user_id"])
      .where("p.slug", "=", slug)
      .where("u.email", "=", email)
      .executeTakeFirstOrThrow()
    const statements = Object.fromEntries(
      Object.entries(STATEMENTS).map(([name, statement]) => {
        const { sql, parameters } = statement.compile(db, places)
        return [name, { sql, slots: parameters.map((value) => (value instanceof Slot ? value : { value })) }]
      }),
    )
    return {
      databaseUrl,
      statements,
      context: { slug, projectId: project.id, userId: project.user_id, userEmail: email, environment },
    }
  } finally {
    await db.destroy()
  }
}
