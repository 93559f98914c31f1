/**
 * The Secrets service's own layers, on top of the shared infrastructure: its store (projects, secrets, API keys,
 * audit log), its accounts and its sessions (`secrets_sessions`, cached where `sessionsCached` says), all on the one
 * configured database, its hourly housekeeping (expired sessions, spent invites) for as long as the service runs,
 * and this instance's memory of API-key checks (the keys whose use it counted lately, and the listener that makes
 * it forget its cached checks when a change on another instance is announced).
 */

import { SqlAccounts, SqlSecretStore } from "@coffer/adapter-sql"
import type { SecretsServices } from "@coffer/http"
import { Housekeeping } from "@coffer/kernel"
import { ApiKeyChecks, secretsHousekeeping } from "@coffer/secrets"
import * as Layer from "effect/Layer"
import type { HostSettings } from "../config/hostSettings.js"
import { type Infrastructure, sessionsLayer } from "../layers.js"

export const secretsLayer = (
  settings: HostSettings,
): Layer.Layer<Exclude<SecretsServices, Infrastructure>, never, Infrastructure> =>
  Layer.merge(Housekeeping.layer("secrets", secretsHousekeeping), ApiKeyChecks.KeyChecks.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(SqlSecretStore.layer, SqlAccounts.layer, sessionsLayer(settings, "secrets"))),
  )
