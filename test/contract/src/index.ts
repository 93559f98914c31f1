/**
 * @coffer/contract: one suite per port, each a function that takes a Layer and registers vitest tests.
 * Every adapter's test file calls the suite for its port.
 */
export * from "./accounts.js"
export * from "./cache.js"
export * from "./cacheSwitch.js"
export * from "./cipher.js"
export * from "./cookieJar.js"
export * from "./databases.js"
export * from "./migrations.js"
export * from "./oidcProvider.js"
export * from "./postgresDatabase.js"
export * from "./schemaStore.js"
export * from "./secretStore.js"
export * from "./services.js"
export * from "./sessions.js"
export * from "./tcpProxy.js"
