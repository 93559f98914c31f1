/**
 * @coffer/adapter-postgres: the Postgres dialect of the SQL store, on a pg connection pool.
 */
export * as Postgres from "./Postgres.js"
