/**
 * `coffer secrets substitute TEMPLATE`: a configuration file of any format with an environment's values put in at
 * its `{{ coffer:KEY }}` references (`../template.ts`), to stdout or to a file of mode 0600, for a program that reads
 * its secrets from a file rather than its environment (nginx, a YAML config, a `.npmrc`).
 *
 * Nothing is written unless every reference can be filled: a reference that names no key, an unknown filter or a key
 * the environment lacks fails the run and is named (by line, or by key), never half-filled. The environment is read
 * as one export (audited as one), and only when the template refers to something.
 */
import { statSync } from "node:fs"
import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { notFound, usage } from "../failure.js"
import { note, write } from "../output.js"
import { writePrivateFile } from "../privateFile.js"
import { exportJson } from "../secretsApi.js"
import type { FlagSettings } from "../settings.js"
import { readFileOrStdin } from "../stdin.js"
import { targetFor } from "../target.js"
import { fillTemplate, keysOf, parseTemplate } from "../template.js"
import { settingsOf, target } from "./flags.js"

/** The environment's values, read as one export, holding each of `keys`. */
const valuesFor = (flags: FlagSettings, keys: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const where = yield* targetFor(flags)
    const values = yield* exportJson(where)
    const missing = keys.filter((key) => !Object.hasOwn(values, key))
    if (missing.length > 0)
      return yield* notFound(`${where.environment} has no ${missing.join(", ")}; nothing was written`)
    return values
  })

/** Whether both paths name one existing file (through links and `./` alike). */
const sameFile = (a: string, b: string) => {
  try {
    const [first, second] = [statSync(a), statSync(b)]
    return first.dev === second.dev && first.ino === second.ino
  } catch {
    // One of them does not exist (the output usually does not, yet): not the same file.
    return false
  }
}

export const substitute = Command.make(
  "substitute",
  {
    ...target,
    template: Argument.String("TEMPLATE").pipe(
      Argument.withDescription(
        "a file with {{ coffer:KEY }} where each value goes ({{ coffer:KEY | json }}: as a JSON string); - for stdin",
      ),
    ),
    output: Flag.String("output").pipe(
      Flag.withAlias("o"),
      Flag.withDescription("write to this file (mode 0600) instead of stdout"),
      Flag.optional,
    ),
  },
  Effect.fn(function* (flags) {
    const name = flags.template === "-" ? "stdin" : flags.template
    // A template is usually committed: written over with its values, it would be lost and the secrets tracked.
    if (Option.isSome(flags.output) && flags.template !== "-" && sameFile(flags.template, flags.output.value)) {
      return yield* usage(
        `--output ${flags.output.value} is the template itself: writing there would replace it with its values; name another file`,
      )
    }
    const text = yield* readFileOrStdin(flags.template, "template")
    // Nothing to fill is not a file to write: an empty stdin (a container started without -i) would otherwise
    // replace a config file with nothing.
    if (text === "") return yield* usage(`${name} is empty; nothing was written`)
    const template = parseTemplate(text)
    if (template.unfillable.length > 0) {
      const problems = template.unfillable.map(({ line, problem }) => `${name}:${line}: ${problem}`)
      return yield* usage(`${problems.join("; ")}; nothing was written`)
    }
    const keys = keysOf(template)
    if (keys.length === 0) yield* note(`${name} has no {{ coffer:KEY }} reference: it is written as it is`)
    const values = keys.length === 0 ? {} : yield* valuesFor(settingsOf(flags), keys)
    const filled = fillTemplate(template, values)
    if (Option.isNone(flags.output)) return yield* write(filled)
    yield* writePrivateFile(flags.output.value, filled, { createDirectory: false })
    yield* note(`wrote ${flags.output.value} (mode 0600) with ${keys.length === 1 ? "1 key" : `${keys.length} keys`}`)
  }),
).pipe(
  Command.withDescription("Write a file with an environment's values put in at its {{ coffer:KEY }} references"),
  Command.withExamples([
    {
      command: "coffer secrets substitute --env production config.yaml.tpl --output config.yaml",
      description: "a config file, mode 0600",
    },
    { command: "coffer secrets substitute nginx.conf.tpl > /etc/nginx/conf.d/app.conf", description: "to stdout" },
  ]),
)
