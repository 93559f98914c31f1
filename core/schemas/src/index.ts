/**
 * @coffer/schemas: the Schemas service without its transport: the pure domain (versions, `@extends` references,
 * merge, resolution, cascade planning), the SchemaStore port, the actor checks, the caches (schema reads, token
 * checks, revocations) and the use cases that `core/http` calls.
 */
export * as Access from "./access.js"
export * from "./domain/index.js"
export * as Permissions from "./domain/permissions.js"
export * from "./domain/platform.js"
export * from "./errors.js"
export * as MemorySchemaStore from "./memory/MemorySchemaStore.js"
export * from "./SchemaStore.js"
export * as SchemaCache from "./schemaCache.js"
export * as AuditLog from "./usecases/audit.js"
export * as History from "./usecases/history.js"
export * as Lineage from "./usecases/lineage.js"
export * as Platforms from "./usecases/platforms.js"
export * as Schemas from "./usecases/schemas.js"
export { groupsOf, schemasSignedIn } from "./usecases/signIn.js"
export * as Tokens from "./usecases/tokenChecks.js"
export * as TokenAdmin from "./usecases/tokens.js"
export * as Views from "./views.js"
