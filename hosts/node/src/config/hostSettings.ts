/**
 * Reading the host's settings from the environment. A bad setting stops the start with one line naming it;
 * in development a missing master key is generated into `.coffer/master.key` instead.
 */
import { resolve } from "node:path"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import { loadOrCreateDevelopmentKey } from "../masterKey.js"
import * as Settings from "./Settings.js"

export const DEVELOPMENT_KEY_FILE = ".coffer/master.key"

export class SettingsRejected extends Error {
  constructor(readonly lines: ReadonlyArray<string>) {
    super(lines.join("\n"))
  }
}

/**
 * The settings with the master key always present (generated in development when absent), and the host's own:
 * `web`, from `COFFER_WEB` (`on` by default), whether each service serves its web app (`@coffer/web`).
 */
export type HostSettings = Settings.Settings & {
  readonly masterKey: Redacted.Redacted<string>
  readonly web?: boolean
}

/**
 * `COFFER_WEB`: `on` (the default) or `off`; a line for `SettingsRejected` when it is neither. By the settings'
 * conventions an empty value is unset and surrounding whitespace is ignored (`COFFER_WEB=` in a compose file).
 */
export const parseWeb = (raw: string | undefined): Result.Result<boolean, string> => {
  const value = raw?.trim()
  return value === undefined || value === "" || value === "on"
    ? Result.succeed(true)
    : value === "off"
      ? Result.succeed(false)
      : Result.fail(`COFFER_WEB: expected on or off, got ${JSON.stringify(value)}`)
}

/**
 * The settings for a command that never reads the master key (`coffer migrate`): checked as for `serve`, but a
 * missing key is no error in production, and none is generated in development.
 */
export const loadSettingsWithoutKey = (env: Settings.Env): Settings.Settings & { readonly web?: boolean } =>
  checked(env, Settings.parse(env, { masterKeyRequired: false }))

/** The parsed settings and `COFFER_WEB`, or `SettingsRejected` with one line per bad setting. */
const checked = (env: Settings.Env, parsed: Result.Result<Settings.Settings, ReadonlyArray<string>>) => {
  const web = parseWeb(env.COFFER_WEB)
  const rejected = [
    ...(Result.isFailure(parsed) ? parsed.failure : []),
    ...(Result.isFailure(web) ? [web.failure] : []),
  ]
  if (Result.isFailure(parsed) || Result.isFailure(web)) throw new SettingsRejected(rejected)
  return { ...parsed.success, web: web.success }
}

export const loadSettings = (env: Settings.Env, cwd = process.cwd()): HostSettings => {
  const settings = checked(env, Settings.parse(env))
  if (settings.masterKey !== undefined) return { ...settings, masterKey: settings.masterKey }
  // Settings.parse already refuses a production start without a key; only development reaches this line.
  const key = loadOrCreateDevelopmentKey(resolve(cwd, DEVELOPMENT_KEY_FILE))
  return { ...settings, masterKey: Redacted.make(key) }
}
