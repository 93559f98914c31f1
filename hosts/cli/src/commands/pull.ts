/**
 * `coffer secrets pull`: an environment's export, to stdout or to a file created with mode 0600. `dotenv` is
 * the service's own `.env` export byte for byte; `json` its JSON export; `shell` is `export KEY='value'` lines;
 * `example` is a `.env.example` to commit beside the code: every key the `.env` export would write, each with an
 * empty value, read from the list of keys, so that no value is read (and nothing is audited as an export).
 */

import { toDotenv } from "@coffer/secrets"
import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { note, write } from "../output.js"
import { writePrivateFile } from "../privateFile.js"
import { exportDotenv, exportJson, listSecrets, type Target } from "../secretsApi.js"
import { toShell } from "../shellFormat.js"
import { targetFor } from "../target.js"
import { settingsOf, target } from "./flags.js"

export type PullFormat = "dotenv" | "json" | "shell" | "example"

const render = (where: Target, format: PullFormat) =>
  Effect.gen(function* () {
    switch (format) {
      case "dotenv":
        return yield* exportDotenv(where)
      case "json":
        return `${JSON.stringify(yield* exportJson(where), null, 2)}\n`
      case "shell": {
        const { text, skipped, holdingNul } = toShell(yield* exportJson(where))
        if (skipped.length > 0)
          yield* note(`left out ${skipped.length} key(s) that are not shell names: ${skipped.join(", ")}`)
        if (holdingNul.length > 0)
          yield* note(
            `left out ${holdingNul.join(", ")}: a value holding a NUL character cannot be a shell variable's (read it with coffer secrets get KEY)`,
          )
        return text
      }
      case "example":
        // The list is sorted by key, as the `.env` export is; the same rule leaves out keys it would leave out.
        return toDotenv((yield* listSecrets(where)).map(({ key }) => ({ key, value: "" })))
    }
  })

export const pull = Command.make(
  "pull",
  {
    ...target,
    format: Flag.Literals("format", ["dotenv", "json", "shell", "example"]).pipe(
      Flag.withDescription(
        "dotenv (the service's .env export), json, shell (export lines), or example (every key, no values: a .env.example)",
      ),
      Flag.withDefault("dotenv"),
    ),
    output: Flag.String("output").pipe(
      Flag.withAlias("o"),
      Flag.withDescription("write to this file (mode 0600) instead of stdout"),
      Flag.optional,
    ),
  },
  Effect.fn(function* (flags) {
    const text = yield* render(yield* targetFor(settingsOf(flags)), flags.format)
    if (Option.isNone(flags.output)) return yield* write(text)
    yield* writePrivateFile(flags.output.value, text, { createDirectory: false })
    yield* note(`wrote ${flags.output.value} (mode 0600)`)
  }),
).pipe(
  Command.withDescription("Write an environment's secrets as .env, JSON or shell exports"),
  Command.withExamples([
    { command: "coffer secrets pull --env development --output .env", description: "a .env file, mode 0600" },
    { command: 'eval "$(coffer secrets pull --env ci --format shell)"', description: "into the current shell" },
    {
      command: "coffer secrets pull --format example --output .env.example",
      description: "the keys a checkout needs, without their values, to commit",
    },
  ]),
)
