/**
 * The in-memory SecretStore against the SecretStore contract, with the in-memory Accounts for its people. Each
 * test gets a fresh layer, hence an empty store.
 */
import { secretStoreSuite } from "@coffer/contract"
import { Clock, Random } from "@coffer/kernel"
import * as Layer from "effect/Layer"
import { MemoryAccounts, MemorySecretStore } from "./index.js"

secretStoreSuite("memory", () =>
  MemorySecretStore.layer.pipe(Layer.provideMerge(MemoryAccounts.layer), Layer.provide([Random.layer, Clock.layer])),
)
