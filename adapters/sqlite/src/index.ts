/**
 * @coffer/adapter-sqlite: the SQLite dialect of the SQL store (better-sqlite3 on Node, bun:sqlite on Bun).
 */
export * as Sqlite from "./Sqlite.js"
