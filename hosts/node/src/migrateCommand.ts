/**
 * `coffer migrate`: apply pending migrations to the configured database and report what was applied.
 */
import { migrate } from "@coffer/adapter-sql"
import * as Effect from "effect/Effect"
import type * as Settings from "./config/Settings.js"
import { databaseLayer } from "./layers.js"

/** Needs the database settings alone: no master key (`loadSettingsWithoutKey`). */
export const runMigrations = (settings: Settings.Settings): Promise<ReadonlyArray<string>> =>
  Effect.runPromise(migrate.pipe(Effect.provide(databaseLayer(settings))))
