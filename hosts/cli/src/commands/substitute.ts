/**
 * `coffer secrets substitute TEMPLATE`: a configuration file of any format with an environment's values put in at
 * its `{{ coffer:KEY }}` references (`../template.ts`), to stdout or to a file of mode 0600, for a program that reads
 * its secrets from a file rather than its environment (nginx, a YAML config, a `.npmrc`).
 *
 * Nothing is written unless every reference can be filled: a reference that names no key, an unknown filter or a key
 * the environment lacks fails the run and is named (by line, or by key), never half-filled. The environment is read
 * as one export (audited as one), and only when the template refers to something.
 */
import { readFileSync } from "node:fs"
import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { notFound, usage } from "../failure.js"
import { note, write } from "../output.js"
import { writePrivateFile } from "../privateFile.js"
import { exportJson } from "../secretsApi.js"
import { readStdin } from "../stdin.js"
import { targetFor } from "../target.js"
import { fillTemplate, keysOf, parseTemplate } from "../template.js"
import { utf8Text } from "../utf8Text.js"
import { settingsOf, target } from "./flags.js"

const readTemplate = (file: string) =>
  file === "-"
    ? readStdin
    : Effect.try({
        try: () => readFileSync(file),
        catch: (error) => usage(`cannot read ${file}: ${error instanceof Error ? error.message : error}`),
      }).pipe(Effect.flatMap((bytes) => utf8Text(bytes, file)))

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
    const template = parseTemplate(yield* readTemplate(flags.template))
    if (template.unfillable.length > 0) {
      const problems = template.unfillable.map(({ line, problem }) => `${name}:${line}: ${problem}`)
      return yield* usage(`${problems.join("; ")}; nothing was written`)
    }
    const keys = keysOf(template)
    let values: Readonly<Record<string, string>> = {}
    if (keys.length === 0) yield* note(`${name} has no {{ coffer:KEY }} reference: it is written as it is`)
    else {
      const where = yield* targetFor(settingsOf(flags))
      values = yield* exportJson(where)
      const missing = keys.filter((key) => !Object.hasOwn(values, key))
      if (missing.length > 0)
        return yield* notFound(`${where.environment} has no ${missing.join(", ")}; nothing was written`)
    }
    const text = fillTemplate(template, values)
    if (Option.isNone(flags.output)) return yield* write(text)
    yield* writePrivateFile(flags.output.value, text)
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
