/**
 * `coffer secrets copy --to ENV [KEY...]`: brings the environment's secrets (all, or the keys named) into another
 * environment of the same project, as the web app's compare page does, by `import`'s rules: a key the other side
 * holds with another value is a conflict, and `--on-conflict` decides (`fail`, the default, writes nothing; `skip`;
 * `overwrite`, whose replaced value stays in that key's history). The source is read as one export, audited as
 * one; keys and counts are printed, never values.
 */
import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import { usage } from "../failure.js"
import { exportJson } from "../secretsApi.js"
import { targetFor } from "../target.js"
import { json as jsonFlag, settingsOf, target } from "./flags.js"
import { importInto, onConflict } from "./push.js"

export const copy = Command.make(
  "copy",
  {
    ...target,
    to: Flag.String("to").pipe(Flag.withDescription("the environment to copy into (same project)")),
    keys: Argument.String("KEY").pipe(
      Argument.withDescription("the keys to copy (default: every key)"),
      Argument.variadic(),
    ),
    onConflict,
    json: jsonFlag,
  },
  Effect.fn(function* (flags) {
    const from = yield* targetFor(settingsOf(flags))
    if (flags.to === from.environment)
      return yield* usage(`--to names ${from.environment}, the environment copied from`)
    const all = yield* exportJson(from)
    const missing = flags.keys.filter((key) => !Object.hasOwn(all, key))
    if (missing.length > 0) {
      return yield* usage(`${from.environment} has no ${missing.join(", ")}; nothing was written`)
    }
    const wanted = flags.keys.length === 0 ? Object.keys(all) : flags.keys
    const values = new Map(wanted.map((key) => [key, all[key]!] as const))
    return yield* importInto({ ...from, environment: flags.to }, values, flags.onConflict, flags.json)
  }),
).pipe(
  Command.withDescription("Copy an environment's secrets (or the keys named) into another; shows keys, never values"),
  Command.withExamples([
    { command: "coffer secrets copy --env staging --to production", description: "what staging has, production gets" },
    {
      command: "coffer secrets copy --env development --to staging API_URL --on-conflict overwrite",
      description: "one key, replacing staging's",
    },
  ]),
)
