/**
 * The environment a secrets command works on: the service and key from the settings, the environment named by
 * a flag, `COFFER_ENVIRONMENT` or `.coffer.json` (never guessed: running against the wrong environment is worse
 * than stopping), and the project named the same way or, when none is, the one project the API key reaches.
 */
import * as Effect from "effect/Effect"
import { usage } from "./failure.js"
import { loadSettings, secretsEndpoint } from "./invocation.js"
import { projects, type Target } from "./secretsApi.js"
import type { FlagSettings, Settings } from "./settings.js"

/** Ways to name what is missing; `coffer init` is left out of what `init` itself says. */
const ways = (flag: string, variable: string, fromInit: boolean) =>
  fromInit ? `pass ${flag} or set ${variable}` : `pass ${flag}, set ${variable}, or run \`coffer init\``

export const requireEnvironment = (settings: Settings, fromInit = false) =>
  settings.environment === undefined
    ? Effect.fail(usage(`no environment: ${ways("--env", "COFFER_ENVIRONMENT", fromInit)}`))
    : Effect.succeed(settings.environment)

/** The project to use when none is named: the only one the key reaches. */
const soleProject = (endpoint: Target["endpoint"], fromInit: boolean) =>
  Effect.flatMap(projects(endpoint), (found) =>
    found.length === 1 && found[0] !== undefined
      ? Effect.succeed(found[0].slug)
      : Effect.fail(usage(`no project: ${ways("--project", "COFFER_PROJECT", fromInit)}`)),
  )

export const resolveTarget = (settings: Settings, fromInit = false) =>
  Effect.gen(function* () {
    const endpoint = yield* secretsEndpoint(settings)
    const environment = yield* requireEnvironment(settings, fromInit)
    const project = settings.project ?? (yield* soleProject(endpoint, fromInit))
    return { endpoint, project, environment } satisfies Target
  })

/** The project alone, for what spans its environments (the audit log). */
export const resolveProject = (settings: Settings) =>
  Effect.gen(function* () {
    const endpoint = yield* secretsEndpoint(settings)
    const project = settings.project ?? (yield* soleProject(endpoint, false))
    return { endpoint, project }
  })

/** Settings and target in one step, for the commands that need nothing else. */
export const targetFor = (flags: FlagSettings) => Effect.flatMap(loadSettings(flags), resolveTarget)

/** Settings and project in one step, for the commands that span a project's environments. */
export const projectFor = (flags: FlagSettings) => Effect.flatMap(loadSettings(flags), resolveProject)
