/**
 * `coffer migrate`: apply pending migrations to the configured database and report what was applied.
 */
import { migrate } from "@coffer/adapter-sql"
import { Effect } from "effect"
import { databaseLayer } from "./layers.js"
import type { HostSettings } from "./settings.js"

export const runMigrations = (settings: HostSettings): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(migrate.pipe(Effect.provide(databaseLayer(settings))))
