/**
 * What one run of the command sees of its process: the environment and the working directory. A service, so
 * that tests and the server's `coffer` hand in their own instead of the commands reading `process` directly.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { authFailure, type CofferFailure, usage } from "./failure.js"
import type { Endpoint } from "./http.js"
import { type FlagSettings, resolveSettings, type Settings, urlProblem } from "./settings.js"
import { readProjectFile, readUserConfig } from "./settingsFiles.js"

export interface InvocationShape {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  /** Sets the code the process ends with; `run` ends with its child's. */
  readonly setExitCode: (code: number) => void
}

export class Invocation extends Context.Service<Invocation, InvocationShape>()("@coffer/cli/Invocation") {}

/**
 * The settings of this run, with `flags` on top of the environment and both files. An empty flag, a URL that is not
 * one, or one that holds credentials, is a usage error here, before anything is sent or stored.
 */
export const loadSettings = (flags: FlagSettings) =>
  Effect.gen(function* () {
    // An empty flag is a variable that was not set (`--env "$DEPLOY_ENV"`): read as absent, it would hand the
    // choice to COFFER_ENVIRONMENT or `.coffer.json`, and a deploy would run against their environment.
    for (const [name, value] of [
      ["--url", flags.url],
      ["--schemas-url", flags.schemasUrl],
      ["--project", flags.project],
      ["--env", flags.environment],
    ] as const) {
      if (value !== undefined && value.trim().length === 0)
        return yield* usage(`${name} is empty: give it a value, or leave the flag out`)
    }
    const { env, cwd } = yield* Invocation
    const projectFile = yield* readProjectFile(cwd)
    const userConfig = yield* readUserConfig(env)
    const settings = resolveSettings({ flags, env, projectFile, userConfig })
    for (const [service, url] of [
      ["secrets", settings.url],
      ["schemas", settings.schemasUrl],
    ] as const) {
      const problem = url === undefined ? undefined : urlProblem(url)
      if (problem !== undefined) return yield* usage(`the ${service} service URL ${problem}`)
    }
    return settings
  })

/**
 * A token of the other service, refused before it is sent anywhere: the service would only answer "invalid key",
 * which sends the user looking for a revoked key rather than at the variable they filled in.
 */
const otherKind = (url: string, token: string, wanted: "secrets" | "schemas") => {
  if (wanted === "secrets" && token.startsWith("cfs_"))
    return authFailure(
      `the key for ${url} is a schemas token (cfs_…): secrets commands need a project API key (cfk_…); a schemas token goes in COFFER_SCHEMAS_TOKEN`,
    )
  if (wanted === "schemas" && token.startsWith("cfk_"))
    return authFailure(
      `the token for ${url} is a secrets API key (cfk_…): schemas commands need a schemas token (cfs_…); a secrets API key goes in COFFER_TOKEN`,
    )
  return undefined
}

/** The secrets service to call, or a usage failure naming the setting that is missing. */
export const secretsEndpoint = (settings: Settings): Effect.Effect<Endpoint, CofferFailure> => {
  if (settings.url === undefined) {
    return Effect.fail(usage("no secrets service URL: pass --url, set COFFER_URL, or run `coffer login --url URL`"))
  }
  if (settings.token === undefined) {
    return Effect.fail(
      authFailure(
        settings.tokenWithheld ??
          `no API key for ${settings.url}: run \`coffer login --url ${settings.url}\` or set COFFER_TOKEN`,
      ),
    )
  }
  const mixedUp = otherKind(settings.url, settings.token, "secrets")
  if (mixedUp !== undefined) return Effect.fail(mixedUp)
  return Effect.succeed({
    url: settings.url,
    token: settings.token,
    service: "secrets",
    onRefused: `run \`coffer login --url ${settings.url}\` to store a new key (COFFER_TOKEN, when set, comes first)`,
  })
}

export const schemasEndpoint = (settings: Settings): Effect.Effect<Endpoint, CofferFailure> => {
  if (settings.schemasUrl === undefined) {
    return Effect.fail(
      usage("no schemas service URL: pass --schemas-url, set COFFER_SCHEMAS_URL, or run `coffer login --schemas-url`"),
    )
  }
  if (settings.schemasToken === undefined) {
    return Effect.fail(
      authFailure(
        settings.schemasTokenWithheld ??
          `no API token for ${settings.schemasUrl}: run \`coffer login --schemas-url ${settings.schemasUrl}\` or set COFFER_SCHEMAS_TOKEN`,
      ),
    )
  }
  const mixedUp = otherKind(settings.schemasUrl, settings.schemasToken, "schemas")
  if (mixedUp !== undefined) return Effect.fail(mixedUp)
  return Effect.succeed({
    url: settings.schemasUrl,
    token: settings.schemasToken,
    service: "schemas",
    onRefused:
      `run \`coffer login --schemas-url ${settings.schemasUrl}\` to store a new token ` +
      "(COFFER_SCHEMAS_TOKEN, when set, comes first)",
  })
}
