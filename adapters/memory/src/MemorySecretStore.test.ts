/**
 * The in-memory SecretStore against the SecretStore contract, with the in-memory Accounts for its people. Each
 * test gets a fresh layer, hence an empty store.
 */
import { secretStoreSuite } from "@coffer/contract"
import { Clock, Random } from "@coffer/kernel"
import { Layer } from "effect"
import { MemoryAccounts, MemorySecretStore } from "./index.js"

secretStoreSuite("memory", () =>
  Layer.mergeAll(MemorySecretStore.layer, MemoryAccounts.layer).pipe(Layer.provide([Random.layer, Clock.layer])),
)
