/**
 * `coffer secrets run -- cmd args…`: runs a command with an environment's secrets added to its environment
 * (a secret wins over a variable of the same name), forwards SIGINT, SIGTERM and SIGHUP, and ends with the
 * command's own exit code (128 + n when signal n ended it).
 *
 * `--fallback FILE` keeps an encrypted snapshot of every successful fetch and uses it only when the service cannot
 * be reached or answers 5xx; after a 401, 403 or 404 the key or project is gone or refused, so the snapshot is
 * deleted and the run fails. `--offline` reads only the snapshot.
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { runChild } from "../child.js"
import { authFailure, type CofferFailure, notFound, usage } from "../failure.js"
import { Invocation, loadSettings } from "../invocation.js"
import { note } from "../output.js"
import { removeFile } from "../privateFile.js"
import { exportJson } from "../secretsApi.js"
import type { Settings } from "../settings.js"
import { loadSnapshot, type Snapshot, saveSnapshot } from "../snapshot.js"
import { resolveTarget } from "../target.js"
import { settingsOf, target } from "./flags.js"

/** Fetches the environment, keeping the snapshot up to date when there is one. */
const fetchValues = (settings: Settings, fallback: string | undefined) =>
  Effect.gen(function* () {
    const where = yield* resolveTarget(settings)
    const values = yield* exportJson(where)
    if (fallback !== undefined) {
      const snapshot: Snapshot = {
        url: where.endpoint.url,
        project: where.project,
        environment: where.environment,
        savedAt: new Date().toISOString(),
        values,
      }
      yield* saveSnapshot(fallback, where.endpoint.token, snapshot)
    }
    return values
  })

/** The snapshot's values, after checking it is the environment asked for. */
const fromSnapshot = (settings: Settings, file: string) =>
  Effect.gen(function* () {
    if (settings.token === undefined)
      return yield* authFailure("the snapshot needs the API key that wrote it (COFFER_TOKEN or `coffer login`)")
    const snapshot = yield* loadSnapshot(file, settings.token)
    const mismatch = (
      [
        ["project", settings.project, snapshot.project],
        ["environment", settings.environment, snapshot.environment],
      ] as const
    ).find(([, wanted, held]) => wanted !== undefined && wanted !== held)
    if (mismatch !== undefined) {
      return yield* usage(`the snapshot holds ${mismatch[0]} ${mismatch[2]}, not ${mismatch[1]}`)
    }
    return snapshot
  })

const FALLBACK_REFUSALS: ReadonlyArray<CofferFailure["kind"]> = ["auth", "refused", "notFound"]

const valuesFor = (settings: Settings, fallback: string | undefined, offline: boolean) => {
  if (offline) {
    if (fallback === undefined) return Effect.fail(usage("--offline needs --fallback FILE"))
    return Effect.map(fromSnapshot(settings, fallback), (snapshot) => snapshot.values)
  }
  if (fallback === undefined) return fetchValues(settings, undefined)
  return fetchValues(settings, fallback).pipe(
    Effect.catchTag("CofferFailure", (failure) => {
      if (FALLBACK_REFUSALS.includes(failure.kind)) return Effect.andThen(removeFile(fallback), Effect.fail(failure))
      if (failure.kind !== "server") return Effect.fail(failure)
      return Effect.gen(function* () {
        const snapshot = yield* fromSnapshot(settings, fallback)
        yield* note(`${failure.message}; using the snapshot saved ${snapshot.savedAt}`)
        return snapshot.values
      })
    }),
  )
}

/** `--only A --only B,C`: the keys to pass, each of which must exist. */
const pick = (values: Readonly<Record<string, string>>, only: ReadonlyArray<string>) => {
  const wanted = only.flatMap((item) => item.split(",")).filter((key) => key.length > 0)
  if (wanted.length === 0) return Effect.succeed(values)
  const missing = wanted.filter((key) => !Object.hasOwn(values, key))
  if (missing.length > 0) return Effect.fail(notFound(`not in the environment: ${missing.join(", ")}`))
  return Effect.succeed(Object.fromEntries(wanted.map((key) => [key, values[key] ?? ""])))
}

export const run = Command.make(
  "run",
  {
    ...target,
    only: Flag.String("only").pipe(
      Flag.withDescription("pass only these keys (repeat the flag or separate with commas)"),
      Flag.atLeast(0),
    ),
    fallback: Flag.String("fallback").pipe(
      Flag.withDescription("keep an encrypted snapshot here; use it when the service is unreachable or failing"),
      Flag.optional,
    ),
    offline: Flag.Boolean("offline").pipe(
      Flag.withDescription("use only the --fallback snapshot"),
      Flag.withDefault(false),
    ),
    command: Argument.String("command").pipe(
      Argument.withDescription("the command and its arguments, after --"),
      Argument.variadic({ min: 1 }),
    ),
  },
  Effect.fn(function* (flags) {
    const [program, ...args] = flags.command
    if (program === undefined) return yield* usage("no command to run: coffer secrets run -- cmd args…")
    const settings = yield* loadSettings(settingsOf(flags))
    const values = yield* valuesFor(settings, Option.getOrUndefined(flags.fallback), flags.offline)
    const passed = yield* pick(values, flags.only)
    const invocation = yield* Invocation
    const code = yield* runChild(program, args, { ...invocation.env, ...passed })
    invocation.setExitCode(code)
  }),
).pipe(
  Command.withDescription("Run a command with an environment's secrets in its environment"),
  Command.withExamples([
    { command: "coffer secrets run --env production -- npm start", description: "a Procfile line" },
    {
      command: "coffer secrets run --env ci --only DB_URL --fallback .coffer/ci.snapshot -- ./migrate.sh",
      description: "one key; a snapshot for when the service is down",
    },
  ]),
)
