/**
 * The SchemaStore port in process memory, for tests, embedding and single-process development. The store itself
 * lives beside the port in `@coffer/schemas` (so the core's use-case tests need no adapter); this module gives it
 * the name and place every other memory adapter has.
 */
import { MemorySchemaStore, type SchemaStore } from "@coffer/schemas"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"

/** A fresh store with its own state. */
export const make: Effect.Effect<SchemaStore["Service"]> = MemorySchemaStore.make

/** The SchemaStore on a fresh in-memory state, which lives as long as the layer. */
export const layer: Layer.Layer<SchemaStore> = MemorySchemaStore.layer
