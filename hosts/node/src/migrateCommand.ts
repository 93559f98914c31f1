/**
 * `coffer migrate`: apply pending migrations to the configured database and report what was applied.
 */
import { migrate } from "@coffer/adapter-sql"
import * as Effect from "effect/Effect"
import type { HostSettings } from "./config/hostSettings.js"
import { databaseLayer } from "./layers.js"

export const runMigrations = (settings: HostSettings): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(migrate.pipe(Effect.provide(databaseLayer(settings))))
