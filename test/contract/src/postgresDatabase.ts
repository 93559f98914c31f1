/**
 * A Postgres database of a test's own, for suites that talk to it through a URL (the end-to-end tests hand it
 * to a host as `COFFER_DATABASE_URL`): created empty, queried directly to look under the service, dropped after.
 * Store suites that work with layers use `databases.ts` instead.
 */
import pg from "pg"
import { postgresUrl, runId } from "./services.js"

export interface PostgresDatabase {
  readonly name: string
  readonly url: string
  /** Runs one statement on a connection of its own and returns the rows. */
  readonly query: (sql: string, params?: ReadonlyArray<unknown>) => Promise<Array<Record<string, unknown>>>
  /** Drops the database, ending any connection still open to it. */
  readonly drop: () => Promise<void>
}

const withClient = async <A>(url: string, use: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

export const createPostgresDatabase = async (kind: string): Promise<PostgresDatabase> => {
  const name = runId(kind)
  await withClient(postgresUrl, (admin) => admin.query(`create database ${name}`))
  const url = new URL(postgresUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    query: (sql, params = []) =>
      withClient(url.toString(), async (client) => (await client.query(sql, [...params])).rows),
    drop: () =>
      withClient(postgresUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  }
}
