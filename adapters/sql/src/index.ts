/**
 * @coffer/adapter-sql: the one Kysely storage foundation under both dialect packages: the `SqlDatabase`
 * service (queries and transactions as Effects), the shared error classifier, and the migrations.
 * `@coffer/adapter-sqlite` and `@coffer/adapter-postgres` provide `SqlDatabase`; everything else is shared.
 */
export { migrate, NewerDatabase } from "./migrate.js"
export { latestMigration, migrations } from "./migrations/index.js"
export * as SqlAccounts from "./SqlAccounts.js"
export * as SqlDatabase from "./SqlDatabase.js"
export * as SqlError from "./SqlError.js"
export * as SqlKeyCanary from "./SqlKeyCanary.js"
export * as SqlMeta from "./SqlMeta.js"
export * as SqlSchemaStore from "./SqlSchemaStore.js"
export * as SqlSecretStore from "./SqlSecretStore.js"
export * as SqlSessions from "./SqlSessions.js"
export * as SqlStore from "./SqlStore.js"
export type { LaneMember, SyncLane } from "./SyncLane.js"
/** The secret store's hot statements, for callers that measure against them (the benchmarks' Postgres reference). */
export * as SqlSecretStatements from "./secrets/statements.js"
export type { CofferMetaTable, Tables } from "./Tables.js"
