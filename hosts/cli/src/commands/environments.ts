/**
 * `coffer environments list|create|delete`: a project's environments from the terminal, for what a script sets up
 * and takes down, such as an environment per pull request, made as a copy of staging and deleted once merged. A
 * write key may add and remove environments (seed 001 §5).
 *
 * `create --copy-from` refuses a name the service would not take, and a key that may only read, before the source
 * is read; it reads the source as one export (audited as one) before anything is made, so a source that is missing
 * or out of reach creates nothing; then it creates the environment and writes each key as new, through the plan
 * `push` writes with (`../secretsPlan.ts`). Deleting an environment deletes its secrets and their history: on a terminal the name is
 * asked for again, elsewhere `--yes` must say so.
 */

import { parseEnvironmentName } from "@coffer/secrets"
import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { confirmation, isInteractive } from "../confirm.js"
import { CofferFailure, usage } from "../failure.js"
import { json, line, note, table } from "../output.js"
import { createEnvironment, deleteEnvironment, exportJson, environments as listEnvironments } from "../secretsApi.js"
import { applyPlan, checkPlan } from "../secretsPlan.js"
import { readLine } from "../stdin.js"
import { projectFor } from "../target.js"
import { checkWriter } from "../writeAccess.js"
import { json as jsonFlag, project, settingsOf, url } from "./flags.js"

const name = Argument.String("NAME").pipe(Argument.withDescription("the environment's name"))

const list = Command.make(
  "list",
  { url, project, json: jsonFlag },
  Effect.fn(function* (flags) {
    const { endpoint, project: slug } = yield* projectFor(settingsOf(flags))
    const found = yield* listEnvironments(endpoint, slug)
    if (flags.json) return yield* json(found)
    yield* line(table([["NAME", "CREATED"], ...found.map((environment) => [environment.name, environment.createdAt])]))
  }),
).pipe(
  Command.withDescription("List the project's environments"),
  Command.withExamples([{ command: "coffer environments list --json", description: "for a script" }]),
)

const create = Command.make(
  "create",
  {
    url,
    project,
    name,
    copyFrom: Flag.String("copy-from").pipe(
      Flag.withDescription("start with a copy of this environment's secrets (read as one export, audited)"),
      Flag.optional,
    ),
    json: jsonFlag,
  },
  Effect.fn(function* (flags) {
    const { endpoint, project: slug } = yield* projectFor(settingsOf(flags))
    const source = Option.getOrUndefined(flags.copyFrom)
    if (source === flags.name) return yield* usage(`--copy-from names ${flags.name}, the environment to create`)
    // Everything the service would refuse is refused before the source is read (an export, in the audit log) or
    // anything is made: a name it does not take, a key that may only read, a source that cannot be copied.
    const checked = Result.getOrUndefined(parseEnvironmentName(flags.name))
    if (checked === undefined)
      return yield* usage(
        `${JSON.stringify(flags.name)} is no environment name: letters, digits, _, - and . (at most 64)`,
      )
    yield* checkWriter(endpoint, "creating an environment")
    const values = new Map(
      source === undefined ? [] : Object.entries(yield* exportJson({ endpoint, project: slug, environment: source })),
    )
    const plan = { add: [...values.keys()].sort(), change: [], remove: [] }
    yield* checkPlan(plan, values)
    const environment = yield* createEnvironment(endpoint, slug, checked)
    const where = { endpoint, project: slug, environment: environment.name }
    // A key someone else adds to the new environment meanwhile is theirs, and stays.
    const left = yield* applyPlan(where, plan, values, "skip").pipe(
      Effect.mapError(
        (failure) =>
          new CofferFailure({
            kind: failure.kind,
            status: failure.status,
            message:
              `${slug}/${environment.name} was created, but copying from ${source} stopped at ${failure.message}; ` +
              `finish with: coffer secrets copy --env ${source} --to ${environment.name} --on-conflict skip`,
          }),
      ),
    )
    const copied = plan.add.filter((key) => !left.includes(key))
    if (flags.json) return yield* json({ environment, copied, skipped: left })
    const count = (keys: ReadonlyArray<string>) => (keys.length === 1 ? "1 key" : `${keys.length} keys`)
    const from = source === undefined ? "" : ` with ${count(copied)} from ${source}`
    const skipped =
      left.length === 0 ? "" : `; ${count(left)} added there meanwhile left as they are: ${left.join(", ")}`
    yield* line(`created ${slug}/${environment.name}${from}${skipped}`)
  }),
).pipe(
  Command.withDescription("Create an environment, empty or as a copy of another's secrets"),
  Command.withExamples([
    { command: "coffer environments create pr-123 --copy-from staging", description: "a preview environment" },
    { command: "coffer environments create qa", description: "an empty one" },
  ]),
)

const remove = Command.make(
  "delete",
  {
    url,
    project,
    name,
    yes: Flag.Boolean("yes").pipe(
      Flag.withAlias("y"),
      Flag.withDescription("delete without asking: its secrets and their history go with it"),
      Flag.withDefault(false),
    ),
  },
  Effect.fn(function* (flags) {
    const { endpoint, project: slug } = yield* projectFor(settingsOf(flags))
    const decision = confirmation({ yes: flags.yes, interactive: isInteractive() })
    if (decision === "refuse")
      return yield* usage(`deleting ${flags.name} deletes its secrets and their history: pass --yes to do it`)
    if (decision === "ask") {
      // A whole environment goes: its name typed back, which a reflexive `y` is not.
      const typed = yield* readLine(
        `Deleting ${slug}/${flags.name} deletes its secrets and their history. Type its name to go on: `,
      )
      if (typed.trim() !== flags.name)
        return yield* usage(`${JSON.stringify(typed.trim())} is not ${flags.name}: nothing was deleted`)
    }
    yield* deleteEnvironment(endpoint, slug, flags.name)
    yield* note(`deleted ${slug}/${flags.name}, with its secrets`)
  }),
).pipe(
  Command.withDescription("Delete an environment with its secrets and their history"),
  Command.withExamples([
    { command: "coffer environments delete pr-123 --yes", description: "once the pull request is merged" },
  ]),
)

export const environments = Command.make("environments").pipe(
  Command.withDescription("A project's environments: list, create (empty or as a copy), delete"),
  Command.withSubcommands([list, create, remove]),
  Command.withExamples([
    { command: "coffer environments create pr-123 --copy-from staging", description: "a preview environment" },
    { command: "coffer environments delete pr-123 --yes", description: "and gone once merged" },
  ]),
)
