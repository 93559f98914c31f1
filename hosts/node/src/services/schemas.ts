/**
 * The Schemas service's own layers, on top of the shared infrastructure: its store (platforms, versions, schemas,
 * API tokens, audit log) and its sessions (`schemas_sessions`, cached where `sessionsCached` says), both on the one
 * configured database, and the revocation listener, which subscribes to token revocations through the shared cache
 * (Redis pub/sub when `COFFER_REDIS_URL` is set) for as long as the service runs, and its hourly housekeeping
 * (expired sessions).
 */
import { SqlSchemaStore } from "@coffer/adapter-sql"
import type { SchemasServices } from "@coffer/http"
import { Housekeeping, Sessions } from "@coffer/kernel"
import { SchemaCache, Tokens } from "@coffer/schemas"
import * as Layer from "effect/Layer"
import type { HostSettings } from "../config/hostSettings.js"
import { type Infrastructure, sessionsLayer } from "../layers.js"

export const schemasLayer = (
  settings: HostSettings,
): Layer.Layer<Exclude<SchemasServices, Infrastructure>, never, Infrastructure> =>
  Housekeeping.layer(
    "schemas",
    Sessions.Sessions.use((sessions) => sessions.removeExpired),
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SqlSchemaStore.layer,
        sessionsLayer(settings, "schemas"),
        Tokens.RevokedTokens.layer,
        SchemaCache.generationListener,
        // `COFFER_DECODED_SCHEMAS_MAX`: schema answers each process keeps decoded.
        Layer.succeed(SchemaCache.DecodedSchemasMax)(settings.decodedSchemasMax),
      ),
    ),
  )
