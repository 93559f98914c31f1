/**
 * The in-memory Accounts against the Accounts contract. Each test gets a fresh layer, hence no accounts.
 */
import { accountsSuite } from "@coffer/contract"
import { MemoryAccounts } from "./index.js"

accountsSuite("memory", () => MemoryAccounts.layer)
