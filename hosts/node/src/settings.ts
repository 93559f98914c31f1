/**
 * Reading the host's settings from the environment. A bad setting stops the start with one line naming it;
 * in development a missing master key is generated into `.coffer/master.key` instead.
 */
import { resolve } from "node:path"
import { Settings } from "@coffer/kernel"
import { Redacted, Result } from "effect"
import { loadOrCreateDevelopmentKey } from "./masterKey.js"

export const DEVELOPMENT_KEY_FILE = ".coffer/master.key"

export class SettingsRejected extends Error {
  constructor(readonly lines: ReadonlyArray<string>) {
    super(lines.join("\n"))
  }
}

/** The settings with the master key always present (generated in development when absent). */
export type HostSettings = Settings.Settings & { readonly masterKey: Redacted.Redacted<string> }

export const loadSettings = (env: Settings.Env, cwd = process.cwd()): HostSettings => {
  const parsed = Settings.parse(env)
  if (Result.isFailure(parsed)) throw new SettingsRejected(parsed.failure)
  const settings = parsed.success
  if (settings.masterKey !== undefined) return { ...settings, masterKey: settings.masterKey }
  // Settings.parse already refuses a production start without a key; only development reaches this line.
  const key = loadOrCreateDevelopmentKey(resolve(cwd, DEVELOPMENT_KEY_FILE))
  return { ...settings, masterKey: Redacted.make(key) }
}
