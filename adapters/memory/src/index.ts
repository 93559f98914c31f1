/**
 * @coffer/adapter-memory: the kernel ports kept in process memory, for tests, embedding and the zero-dependency
 * default. Nothing here is shared between processes.
 */
export * as MemoryAccounts from "./MemoryAccounts.js"
export * as MemoryCache from "./MemoryCache.js"
export * as MemorySchemaStore from "./MemorySchemaStore.js"
export * as MemorySecretStore from "./MemorySecretStore.js"
export * as MemorySessions from "./MemorySessions.js"
