/**
 * `coffer schemas get`, `list` and `diff`: reading resolved configuration with a read-only schemas token, as a CI
 * job does. `PLATFORM/VERSION` is anything `@extends` accepts (an exact version, `latest`, `^`, `~` or `>=`).
 */

import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as JsonPatch from "effect/JsonPatch"
import * as Option from "effect/Option"
import { loadSettings, schemasEndpoint } from "../invocation.js"
import { json, line, note, table } from "../output.js"
import { writePrivateFile } from "../privateFile.js"
import { platforms, resolveSchema } from "../schemasApi.js"
import { json as jsonFlag, schemasUrl, settingsOf } from "./flags.js"

const endpointFor = (flags: { readonly schemasUrl: Option.Option<string> }) =>
  Effect.flatMap(loadSettings(settingsOf(flags)), schemasEndpoint)

export const get = Command.make(
  "get",
  {
    schemasUrl,
    reference: Argument.String("PLATFORM/VERSION").pipe(
      Argument.withDescription("an exact version, latest, or a ^, ~ or >= range; the platform alone is its latest"),
    ),
    output: Flag.String("output").pipe(
      Flag.withAlias("o"),
      Flag.withDescription("write the resolved output to this file instead of stdout"),
      Flag.optional,
    ),
  },
  Effect.fn(function* (flags) {
    const resolved = yield* resolveSchema(yield* endpointFor(flags), flags.reference)
    const text = `${JSON.stringify(resolved.output, null, 2)}\n`
    if (Option.isNone(flags.output)) return yield* line(text.trimEnd())
    yield* writePrivateFile(flags.output.value, text, { createDirectory: false })
    yield* note(`wrote ${resolved.platform}/${resolved.version} to ${flags.output.value}`)
  }),
).pipe(
  Command.withDescription("Print a schema's resolved output; the version may be exact, latest or a range"),
  Command.withExamples([
    { command: "coffer schemas get app/^2", description: "the newest 2.x, resolved" },
    { command: "coffer schemas get ios/latest --output config.json", description: "into a file" },
  ]),
)

export const list = Command.make(
  "list",
  { schemasUrl, json: jsonFlag },
  Effect.fn(function* (flags) {
    const found = yield* platforms(yield* endpointFor(flags))
    if (flags.json) return yield* json(found)
    if (found.length === 0) return yield* line("(no platforms)")
    yield* line(table([["PLATFORM", "VERSIONS"], ...found.map((p) => [p.name, p.versions.join(", ") || "-"])]))
  }),
).pipe(
  Command.withDescription("List the platforms and versions the token can read"),
  Command.withExamples([{ command: "coffer schemas list --json", description: "for a script" }]),
)

const describeOperation = (operation: JsonPatch.JsonPatchOperation) =>
  operation.op === "remove"
    ? `- ${operation.path || "/"}`
    : `${operation.op === "add" ? "+" : "~"} ${operation.path || "/"}: ${JSON.stringify(operation.value)}`

export const diff = Command.make(
  "diff",
  {
    schemasUrl,
    from: Argument.String("A/V1").pipe(Argument.withDescription("the output to compare from, as schemas get takes it")),
    to: Argument.String("B/V2").pipe(Argument.withDescription("the output to compare with, as schemas get takes it")),
    json: jsonFlag,
  },
  Effect.fn(function* (flags) {
    const endpoint = yield* endpointFor(flags)
    const [from, to] = yield* Effect.all([resolveSchema(endpoint, flags.from), resolveSchema(endpoint, flags.to)], {
      concurrency: 2,
    })
    const patch = JsonPatch.get(from.output, to.output)
    if (flags.json) return yield* json(patch)
    const header = `${from.platform}/${from.version} → ${to.platform}/${to.version}`
    yield* line(patch.length === 0 ? `${header}: identical` : [header, ...patch.map(describeOperation)].join("\n"))
  }),
).pipe(
  Command.withDescription("Compare two resolved outputs, as a JSON Patch (RFC 6902) from the first to the second"),
  Command.withExamples([
    { command: "coffer schemas diff app/1.4.0 app/^2", description: "what changed between majors" },
    { command: "coffer schemas diff ios/latest android/latest --json", description: "as JSON Patch" },
  ]),
)
