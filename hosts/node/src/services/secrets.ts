/**
 * The Secrets service's own layers, on top of the shared infrastructure: its store (projects, secrets, API keys,
 * audit log), its accounts and its sessions (`secrets_sessions`), all on the one configured database, and its
 * hourly housekeeping (expired sessions, spent invites) for as long as the service runs.
 */

import { SqlAccounts, SqlSecretStore, SqlSessions } from "@coffer/adapter-sql"
import type { SecretsServices } from "@coffer/http"
import { Housekeeping } from "@coffer/kernel"
import { secretsHousekeeping } from "@coffer/secrets"
import * as Layer from "effect/Layer"
import type { HostSettings } from "../config/hostSettings.js"
import type { Infrastructure } from "../layers.js"

export const secretsLayer = (
  _settings: HostSettings,
): Layer.Layer<Exclude<SecretsServices, Infrastructure>, never, Infrastructure> =>
  Housekeeping.layer("secrets", secretsHousekeeping).pipe(
    Layer.provideMerge(
      Layer.mergeAll(SqlSecretStore.layer, SqlAccounts.layer, SqlSessions.layer({ service: "secrets" })),
    ),
  )
