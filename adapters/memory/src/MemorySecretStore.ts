/**
 * The SecretStore port in process memory, for tests, embedding and single-process development. The store itself
 * lives beside the port in `@coffer/secrets` (so the core's use-case tests need no adapter); this module gives it
 * the name and place every other memory adapter has.
 */
import { type Accounts, MemorySecretStore, type SecretStore } from "@coffer/secrets"
import type * as Layer from "effect/Layer"

/** A fresh, empty store; API keys' holders are read from `holders` (the Accounts beside it). */
export const make: (holders: MemorySecretStore.Holders) => SecretStore.SecretStore["Service"] = MemorySecretStore.make

/** The SecretStore on a fresh in-memory state, which lives as long as the layer; holders from the `Accounts` given. */
export const layer: Layer.Layer<SecretStore.SecretStore, never, Accounts.Accounts> = MemorySecretStore.layer
