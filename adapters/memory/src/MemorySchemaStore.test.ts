/**
 * The in-memory schema store against the SchemaStore contract; each test gets a store of its own.
 */
import { schemaStoreSuite } from "@coffer/contract"
import { MemorySchemaStore } from "./index.js"

schemaStoreSuite("memory", () => MemorySchemaStore.layer)
