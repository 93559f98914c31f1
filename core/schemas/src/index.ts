/**
 * @coffer/schemas: the Schemas service's domain (versions, `@extends` references, merge, resolution,
 * cascade planning) and, as they arrive, its use cases and the SchemaStore port.
 */
export * from "./domain/index.js"
