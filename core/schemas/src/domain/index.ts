/**
 * The pure heart of the Schemas service: version rules and ordering, `@extends` parsing and version selection,
 * the deep merge, resolution with cycle detection, and cascade planning. No I/O and no ports: the use cases load
 * what these functions need from the SchemaStore and call them in memory.
 */
export * from "./cascade.js"
export * from "./content.js"
export * from "./errors.js"
export * from "./extendsRef.js"
export * from "./limits.js"
export * from "./merge.js"
export * from "./provenance.js"
export * from "./resolve.js"
export * from "./schemaId.js"
export * from "./select.js"
export * from "./version.js"
