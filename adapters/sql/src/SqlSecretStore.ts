/**
 * The SecretStore port on SQL (migration `0004_secrets`), one Kysely implementation for SQLite and Postgres, in
 * one part per aggregate under `secrets/`: projects and the people in them, environments and their secrets, API
 * keys, and the audit log every write appends to through one operation.
 *
 * The store decides nothing: orders, pending invites, who sees which key and who may be changed are the use
 * cases' (see the port). It keeps the port's promises that need several rows at once: each write and its audit
 * record, and each audited read and its record, run in one transaction (rules 1 and 2); versions advance by
 * compare-and-set (rule 3, `secrets/environments.ts`); an invite is taken once (rule 7, `secrets/projects.ts`); data keys and re-sealed values change by
 * compare-and-set (rule 10, `secrets/dataKeys.ts`).
 *
 * Failures go through `SqlStore`: a violation the port names becomes its error, a lost conflict reruns the
 * transaction, anything else is a defect (500), and an unreachable database stays `StoreUnavailable` (503).
 */
import { SecretStore } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { SqlDatabase } from "./SqlDatabase.js"
import * as SqlStore from "./SqlStore.js"
import { apiKeys } from "./secrets/apiKeys.js"
import { audited, auditLog } from "./secrets/audit.js"
import { dataKeys } from "./secrets/dataKeys.js"
import { environments } from "./secrets/environments.js"
import { projects } from "./secrets/projects.js"
import { traced } from "./traced.js"

export const make: Effect.Effect<SecretStore.SecretStore["Service"], never, SqlDatabase> = Effect.map(
  SqlStore.current,
  (store) => {
    const audit = audited(store)
    return SecretStore.SecretStore.of(
      traced("SecretStore", {
        ...projects(store, audit),
        ...environments(store, audit),
        ...apiKeys(store, audit),
        ...auditLog(store),
        ...dataKeys(store),
      }),
    )
  },
)

/** The store on the `SqlDatabase` in context (transactions opened by callers reach it; see there). */
export const layer: Layer.Layer<SecretStore.SecretStore, never, SqlDatabase> = Layer.effect(
  SecretStore.SecretStore,
  make,
)
