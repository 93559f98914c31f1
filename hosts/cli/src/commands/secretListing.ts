/**
 * `coffer secrets list`, `history`, `restore` and `diff`: what an environment holds and how it changed, keys and
 * versions only. `diff` compares two environments by key; it prints values only when asked (`--show-values`).
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import { usage } from "../failure.js"
import { json, line, table } from "../output.js"
import { exportJson, listSecrets, listVersions, restoreVersion } from "../secretsApi.js"
import { targetFor } from "../target.js"
import { json as jsonFlag, settingsOf, target } from "./flags.js"

export const list = Command.make(
  "list",
  { ...target, json: jsonFlag },
  Effect.fn(function* (flags) {
    const secrets = yield* listSecrets(yield* targetFor(settingsOf(flags)))
    if (flags.json) return yield* json(secrets)
    if (secrets.length === 0) return yield* line("(no secrets)")
    // An empty value is most often one not filled in yet: said beside its key, as the web app's grid says it.
    yield* line(
      table([
        ["KEY", "VERSION", "UPDATED", ""],
        ...secrets.map((s) => [s.key, String(s.version), s.updatedAt, s.empty === true ? "empty" : ""]),
      ]),
    )
  }),
).pipe(
  Command.withDescription("List an environment's secrets: keys and versions (and which are empty), never values"),
  Command.withExamples([{ command: "coffer secrets list --env production --json", description: "for a script" }]),
)

export const history = Command.make(
  "history",
  {
    ...target,
    key: Argument.String("KEY").pipe(Argument.withDescription("the secret whose versions to list")),
    json: jsonFlag,
  },
  Effect.fn(function* (flags) {
    const versions = yield* listVersions(yield* targetFor(settingsOf(flags)), flags.key)
    if (flags.json) return yield* json(versions)
    yield* line(
      table([
        ["VERSION", "CREATED", "BY", "NOTE"],
        ...versions.map((v) => [
          String(v.version),
          v.createdAt,
          v.userEmail ?? "-",
          v.restoredFrom === null ? "" : `restored from v${v.restoredFrom}`,
        ]),
      ]),
    )
  }),
).pipe(
  Command.withDescription("List a secret's versions, newest first, without values; says which were restores"),
  Command.withExamples([{ command: "coffer secrets history --env production DB_URL", description: "who changed it" }]),
)

export const restore = Command.make(
  "restore",
  {
    ...target,
    key: Argument.String("KEY").pipe(Argument.withDescription("the secret to restore")),
    version: Flag.Int("version").pipe(Flag.withAlias("v"), Flag.withDescription("the version to bring back")),
  },
  Effect.fn(function* (flags) {
    if (flags.version < 1) return yield* usage("--version must be a whole number from 1")
    const written = yield* restoreVersion(yield* targetFor(settingsOf(flags)), flags.key, flags.version)
    yield* line(`${flags.key}: version ${flags.version} restored as version ${written.version}`)
  }),
).pipe(
  Command.withDescription("Bring an old value back as a new version"),
  Command.withExamples([
    { command: "coffer secrets restore --env production DB_URL --version 3", description: "undo a change" },
  ]),
)

/** Keys only in one map, only in the other, and in both with different values; each sorted. */
export const compareMaps = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) => {
  const onlyInA = Object.keys(a).filter((key) => !Object.hasOwn(b, key))
  const onlyInB = Object.keys(b).filter((key) => !Object.hasOwn(a, key))
  const changed = Object.keys(a).filter((key) => Object.hasOwn(b, key) && a[key] !== b[key])
  return { onlyInA: onlyInA.sort(), onlyInB: onlyInB.sort(), changed: changed.sort() }
}

export const diff = Command.make(
  "diff",
  {
    ...target,
    env2: Flag.String("env2").pipe(Flag.withDescription("the environment to compare with")),
    showValues: Flag.Boolean("show-values").pipe(
      Flag.withDescription("print the differing values too"),
      Flag.withDefault(false),
    ),
    json: jsonFlag,
  },
  Effect.fn(function* (flags) {
    const first = yield* targetFor(settingsOf(flags))
    const second = { ...first, environment: flags.env2 }
    const [a, b] = yield* Effect.all([exportJson(first), exportJson(second)], { concurrency: 2 })
    const { onlyInA, onlyInB, changed } = compareMaps(a, b)
    if (flags.json) {
      const detail = (keys: ReadonlyArray<string>, pick: (key: string) => unknown) =>
        flags.showValues ? keys.map((key) => ({ key, ...(pick(key) as object) })) : keys
      // Fixed names, as the flags say them: keyed by the environments' own names, an environment compared with
      // itself, or one named `changed`, overwrote a list.
      return yield* json({
        env: first.environment,
        env2: second.environment,
        onlyInEnv: detail(onlyInA, (key) => ({ value: a[key] })),
        onlyInEnv2: detail(onlyInB, (key) => ({ value: b[key] })),
        changed: detail(changed, (key) => ({ env: a[key], env2: b[key] })),
      })
    }
    const show = (value: string | undefined) => (flags.showValues ? ` = ${JSON.stringify(value)}` : "")
    // Keys in one column, so that what is said about them lines up however long each one is.
    const rows = [
      ...onlyInA.map((key) => [`- ${key}`, `only in ${first.environment}${show(a[key])}`]),
      ...onlyInB.map((key) => [`+ ${key}`, `only in ${second.environment}${show(b[key])}`]),
      ...changed.map((key) => [
        `~ ${key}`,
        `differs${flags.showValues ? `: ${JSON.stringify(a[key])} → ${JSON.stringify(b[key])}` : ""}`,
      ]),
    ]
    yield* line(rows.length === 0 ? `${first.environment} and ${second.environment} hold the same` : table(rows))
  }),
).pipe(
  Command.withDescription("Compare two environments by key (values only with --show-values)"),
  Command.withExamples([
    { command: "coffer secrets diff --env staging --env2 production", description: "what production lacks" },
  ]),
)
