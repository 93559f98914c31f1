/**
 * `coffer secrets run -- cmd args…`: runs a command with an environment's secrets added to its environment
 * (a secret wins over a variable of the same name), forwards SIGINT, SIGTERM and SIGHUP, and ends with the
 * command's own exit code (128 + n when signal n ended it).
 *
 * `--fallback FILE` keeps an encrypted snapshot of every successful fetch and uses it only when the service cannot
 * be reached, answers 5xx or something else answers in its place, and only for the service, project and environment it was taken from; after a 401,
 * 403 or 404 the key or project is gone or refused, so the snapshot of what was refused is deleted and the run
 * fails. `--offline` reads only the snapshot.
 *
 * `--watch` looks for changes every `--watch-interval` seconds (`../secretChanges.ts`) and, when the values the
 * command runs with have changed, stops it (SIGTERM, then SIGKILL after 10 s) and starts it again with the new
 * ones. The command ending on its own ends the run, with its code, as without `--watch`. A signal (passed on to the
 * run, or come while one is being stopped) asks for no next run: the watch ends once the run has, with 128 + its
 * number when the run did not end on its own.
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { exitStatus, heldSignals, runChild } from "../child.js"
import { authFailure, CofferFailure, notFound, usage } from "../failure.js"
import { Invocation, loadSettings, secretsEndpoint } from "../invocation.js"
import { note } from "../output.js"
import { removeFile } from "../privateFile.js"
import { currentFingerprint, type Fitted, nextChange, type Values, type Watch } from "../secretChanges.js"
import { exportJson, type Target } from "../secretsApi.js"
import type { Settings } from "../settings.js"
import { loadSnapshot, type Snapshot, saveSnapshot } from "../snapshot.js"
import { requireEnvironment, resolveTarget } from "../target.js"
import { settingsOf, target } from "./flags.js"

/** Fetches the environment at `target`, keeping the snapshot up to date when there is one. */
const fetchValues = (target: Effect.Effect<Target, CofferFailure>, fallback: string | undefined) =>
  Effect.gen(function* () {
    const where = yield* target
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

/** The snapshot's values, after checking it is the service and environment asked for. */
const fromSnapshot = (settings: Settings, file: string) =>
  Effect.gen(function* () {
    if (settings.token === undefined)
      return yield* authFailure("the snapshot needs the API key that wrote it (COFFER_TOKEN or `coffer login`)")
    const snapshot = yield* loadSnapshot(file, settings.token)
    if (settings.url !== undefined && settings.url !== snapshot.url) {
      const why = "it stands in only for the service it came from"
      return yield* usage(`the snapshot was taken from ${snapshot.url}, not ${settings.url}: ${why}`)
    }
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

/** Infisical's `run --watch-interval` default: a change reaches the command within about 10 s. */
export const WATCH_INTERVAL_SECONDS = 10

/** `effect`'s first success, kept: later runs answer it without running `effect` again. */
const once = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  let kept: Option.Option<A> = Option.none()
  return Effect.suspend(() =>
    Option.isSome(kept)
      ? Effect.succeed(kept.value)
      : Effect.map(effect, (value) => {
          kept = Option.some(value)
          return value
        }),
  )
}

/** The answers after which the snapshot may be deleted (README): the key, project or environment is refused. */
const REFUSALS: ReadonlyArray<number> = [401, 403, 404]

/**
 * Deletes the snapshot the refusal is about, and no other: after 401 (the key is unknown there) the key's
 * snapshot of that service; after 403 or 404 only a snapshot of the refused project and environment, so that a
 * mistyped `--env` never costs the right environment its snapshot. A snapshot of another service, or one this
 * key cannot open, says nothing about this refusal and is kept.
 */
const forgetSnapshot = (file: string, refusedAt: Partial<Target> & Pick<Target, "endpoint">, status: number) =>
  Effect.gen(function* () {
    const held = yield* Effect.option(loadSnapshot(file, refusedAt.endpoint.token))
    if (Option.isNone(held) || held.value.url !== refusedAt.endpoint.url) return
    const same = held.value.project === refusedAt.project && held.value.environment === refusedAt.environment
    if (status === 401 || same) yield* removeFile(file)
  })

const valuesFor = (
  settings: Settings,
  target: Effect.Effect<Target, CofferFailure>,
  fallback: string | undefined,
  offline: boolean,
) => {
  if (offline) {
    if (fallback === undefined) return Effect.fail(usage("--offline needs --fallback FILE"))
    return Effect.map(fromSnapshot(settings, fallback), (snapshot) => snapshot.values)
  }
  if (fallback === undefined) return fetchValues(target, undefined)
  return Effect.gen(function* () {
    // A setting missing here fails before any request: no server refused anything, so the snapshot stays.
    const endpoint = yield* secretsEndpoint(settings)
    const environment = yield* requireEnvironment(settings)
    return yield* fetchValues(target, fallback).pipe(
      Effect.catchTag("CofferFailure", (failure) => {
        if (failure.status !== undefined && REFUSALS.includes(failure.status)) {
          const refusedAt = { endpoint, project: settings.project, environment }
          return Effect.andThen(forgetSnapshot(fallback, refusedAt, failure.status), Effect.fail(failure))
        }
        // 429 and the like are answers too: the snapshot stands in only for a service that is down or failing.
        if (failure.kind !== "server") return Effect.fail(failure)
        return Effect.gen(function* () {
          // No snapshot to stand in (none yet, another environment's, another key's): the service's failure is
          // the reason the command cannot run, and what a retry on exit 5 waits for; the snapshot's is said after it.
          const snapshot = yield* fromSnapshot(settings, fallback).pipe(
            Effect.mapError(
              (unusable) =>
                new CofferFailure({
                  kind: failure.kind,
                  ...(failure.status === undefined ? {} : { status: failure.status }),
                  message: `${failure.message}; and the snapshot cannot stand in: ${unusable.message}`,
                }),
            ),
          )
          yield* note(`${failure.message}; using the snapshot saved ${snapshot.savedAt}`)
          return snapshot.values
        })
      }),
    )
  })
}

/**
 * `--only A --only B,C`: the keys to pass, or `undefined` for all of them. Names are trimmed (`--only "A, B"`);
 * a flag that names no key at all (`--only ""`, `--only ,`) is a mistake, never a way to ask for everything.
 */
export const onlyKeys = (only: ReadonlyArray<string>) => {
  if (only.length === 0) return Effect.succeed(undefined)
  const wanted = only
    .flatMap((item) => item.split(","))
    .map((key) => key.trim())
    .filter((key) => key.length > 0)
  return wanted.length === 0
    ? Effect.fail(usage("--only names no key: give --only KEY or --only KEY1,KEY2"))
    : Effect.succeed(wanted)
}

/** The values of `wanted` (all when `undefined`), each of which must exist. */
export const pick = (values: Readonly<Record<string, string>>, wanted: ReadonlyArray<string> | undefined) => {
  if (wanted === undefined) return Effect.succeed(values)
  const missing = wanted.filter((key) => !Object.hasOwn(values, key))
  if (missing.length > 0) return Effect.fail(notFound(`not in the environment: ${missing.join(", ")}`))
  return Effect.succeed(Object.fromEntries(wanted.map((key) => [key, values[key] ?? ""])))
}

/** Whether a process environment can carry `value`: a C string ends at NUL. */
const carriable = (value: string) => !value.includes("\0")

/**
 * The values a command is given: `wanted` of them, each of which must exist and be one a process environment can
 * carry (Node's own refusal would quote the value, so it is named by key only), or, without `--only`, every value
 * but those, whose keys are answered to be said (`leftOutNote`). One value nobody asked for by name, which the
 * service accepts, never stops every run of the environment.
 */
export const fit = (values: Values, wanted: ReadonlyArray<string> | undefined): Effect.Effect<Fitted, CofferFailure> =>
  Effect.flatMap(pick(values, wanted), (picked) => {
    const unfit = Object.keys(picked)
      .filter((key) => !carriable(picked[key] ?? ""))
      .sort()
    if (unfit.length === 0) return Effect.succeed({ values: picked, leftOut: [] })
    if (wanted !== undefined) {
      const get = unfit.length === 1 ? `coffer secrets get ${unfit[0]}` : "coffer secrets get KEY"
      return Effect.fail(
        usage(
          `${unfit.join(", ")}: a value holding a NUL character cannot be put in a process environment (leave it out of --only; read it with ${get})`,
        ),
      )
    }
    const kept = Object.fromEntries(Object.entries(picked).filter(([, value]) => carriable(value)))
    return Effect.succeed({ values: kept, leftOut: unfit })
  })

/**
 * `env` without `keys`: a secret left out must not let a variable of the same name in the caller's shell through
 * (a local `DATABASE_URL` where the service's was meant), since a secret wins over the shell's everywhere else.
 */
const withoutKeys = (env: Readonly<Record<string, string | undefined>>, keys: ReadonlyArray<string>) => {
  if (keys.length === 0) return env
  const kept = { ...env }
  for (const key of keys) delete kept[key]
  return kept
}

/** What is said, on one line, when a command starts without `leftOut`. */
export const leftOutNote = (leftOut: ReadonlyArray<string>) =>
  leftOut.length === 1
    ? `${leftOut[0]} is left out: its value holds a NUL character, which no process environment can carry (read it with coffer secrets get ${leftOut[0]})`
    : `${leftOut.join(", ")} are left out: their values hold a NUL character, which no process environment can carry (read one with coffer secrets get KEY)`

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
    watch: Flag.Boolean("watch").pipe(
      Flag.withDescription("restart the command when the values it was given change at the service"),
      Flag.withDefault(false),
    ),
    watchInterval: Flag.Int("watch-interval").pipe(
      Flag.withDescription("seconds between two looks for changes with --watch (default 10, at least 1)"),
      Flag.withDefault(WATCH_INTERVAL_SECONDS),
    ),
    command: Argument.String("command").pipe(
      Argument.withDescription("the command and its arguments, after --"),
      Argument.variadic({ min: 1 }),
    ),
  },
  Effect.fn(function* (flags) {
    const [program, ...args] = flags.command
    if (program === undefined) return yield* usage("no command to run: coffer secrets run -- cmd args…")
    if (flags.watch && flags.offline)
      return yield* usage("--watch looks for changes at the service, --offline never asks it")
    if (flags.watchInterval < 1) return yield* usage("--watch-interval is a whole number of seconds, at least 1")
    const wanted = yield* onlyKeys(flags.only)
    const settings = yield* loadSettings(settingsOf(flags))
    const fallback = Option.getOrUndefined(flags.fallback)
    // Resolved once (finding the key's project may take a request), when the service first answers.
    const where = once(resolveTarget(settings))
    const watch: Watch = {
      target: where,
      wanted,
      intervalSeconds: flags.watchInterval,
      read: Effect.flatMap(fetchValues(where, fallback), (values) => fit(values, wanted)),
      program,
    }
    // Read before the values, so that a change made between the two is seen by the first look.
    const known = flags.watch ? yield* currentFingerprint(watch) : Option.none()
    const passed = yield* Effect.flatMap(valuesFor(settings, where, fallback, flags.offline), (values) =>
      fit(values, wanted),
    )
    const invocation = yield* Invocation
    // Said at every start, a watch's included: what the command lacks may differ from one run to the next.
    const start = ({ values, leftOut }: Fitted) =>
      Effect.andThen(
        leftOut.length === 0 ? Effect.void : note(leftOutNote(leftOut)),
        runChild(program, args, withoutKeys({ ...invocation.env, ...values }, leftOut)),
      )
    if (!flags.watch) return invocation.setExitCode(yield* start(passed))
    const signals = yield* heldSignals
    let running = { ...passed, known }
    let runs = 0
    while (true) {
      // Read just before the start, with nothing awaited between: a signal that came since the last run was
      // stopped, during the note about it included, asks for no next run.
      const signal = signals.received()
      if (signal !== undefined) {
        yield* note(`${program} is not ${runs === 0 ? "started" : "started again"}: coffer got ${signal}`)
        return invocation.setExitCode(exitStatus(null, signal))
      }
      runs++
      const outcome = yield* Effect.raceFirst(
        Effect.map(start(running), (code) => ({ _tag: "Exited" as const, code })),
        Effect.map(nextChange(watch, running.values, running.known), (change) => ({
          _tag: "Changed" as const,
          change,
        })),
      )
      if (outcome._tag === "Exited") return invocation.setExitCode(outcome.code)
      if (signals.received() === undefined)
        yield* note(`${outcome.change.keys.join(", ")} changed: ${program} was stopped and starts again`)
      running = outcome.change
    }
  }, Effect.scoped),
).pipe(
  Command.withDescription("Run a command with an environment's secrets in its environment"),
  Command.withExamples([
    { command: "coffer secrets run --env production -- npm start", description: "a Procfile line" },
    {
      command: "coffer secrets run --env ci --only DB_URL --fallback .coffer/ci.snapshot -- ./migrate.sh",
      description: "one key; a snapshot for when the service is down",
    },
    { command: "coffer secrets run --env dev --watch -- npm run dev", description: "restarted when a secret changes" },
  ]),
)
