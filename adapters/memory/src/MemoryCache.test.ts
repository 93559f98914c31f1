/**
 * The in-memory Cache against the Cache contract. Each test gets a fresh layer, hence an empty store.
 */
import { cacheSuite } from "@coffer/contract"
import { MemoryCache } from "./index.js"

cacheSuite("MemoryCache", () => MemoryCache.layer)
