/**
 * The SecretStore port in process memory, for tests, embedding and single-process development. The store itself
 * lives beside the port in `@coffer/secrets` (so the core's use-case tests need no adapter); this module gives it
 * the name and place every other memory adapter has.
 */
import { MemorySecretStore } from "@coffer/secrets"

/** A fresh, empty store. */
export const make = MemorySecretStore.make

/** The SecretStore on a fresh in-memory state, which lives as long as the layer. */
export const layer = MemorySecretStore.layer
