/**
 * @coffer/adapter-postgres: the Postgres dialect of the SQL store, on a pg connection pool.
 */

export * as PgPubSub from "./PgPubSub.js"
export * as Postgres from "./Postgres.js"
