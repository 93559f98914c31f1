/**
 * `coffer environments list|create|delete`: a project's environments from the terminal, for what a script sets up
 * and takes down, such as an environment per pull request, made as a copy of staging and deleted once merged. A
 * write key may add and remove environments (seed 001 §5).
 *
 * `create --copy-from` reads the source as one export (audited as one) before anything is made, so a source that
 * is missing or out of reach creates nothing; then it creates the environment and writes each key as new, by
 * `push`'s own means. Deleting an environment deletes its secrets and their history: on a terminal the name is
 * asked for again, elsewhere `--yes` must say so.
 */
import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CofferFailure, usage } from "../failure.js"
import { loadSettings } from "../invocation.js"
import { json, line, note, table } from "../output.js"
import { createEnvironment, deleteEnvironment, exportJson, environments as listEnvironments } from "../secretsApi.js"
import { readLine, stdinIsTerminal } from "../stdin.js"
import { resolveProject } from "../target.js"
import { json as jsonFlag, project, settingsOf, url } from "./flags.js"
import { applyPlan, checkPlan } from "./push.js"

const projectOf = (flags: { readonly url: Option.Option<string>; readonly project: Option.Option<string> }) =>
  Effect.flatMap(loadSettings(settingsOf(flags)), resolveProject)

const name = Argument.String("NAME").pipe(Argument.withDescription("the environment's name"))

const list = Command.make(
  "list",
  { url, project, json: jsonFlag },
  Effect.fn(function* (flags) {
    const { endpoint, project: slug } = yield* projectOf(flags)
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
    const { endpoint, project: slug } = yield* projectOf(flags)
    const source = Option.getOrUndefined(flags.copyFrom)
    if (source === flags.name) return yield* usage(`--copy-from names ${flags.name}, the environment to create`)
    // Read and checked before the environment exists: a source that cannot be copied creates nothing.
    const values = new Map(
      source === undefined ? [] : Object.entries(yield* exportJson({ endpoint, project: slug, environment: source })),
    )
    const keys = [...values.keys()].sort()
    const plan = { add: keys, change: [], remove: [] }
    yield* checkPlan(plan, values)
    const environment = yield* createEnvironment(endpoint, slug, flags.name)
    const where = { endpoint, project: slug, environment: environment.name }
    yield* applyPlan(where, plan, values, "fail").pipe(
      Effect.mapError(
        (failure) =>
          new CofferFailure({
            kind: failure.kind,
            status: failure.status,
            message: `${slug}/${environment.name} was created, but copying from ${source} stopped: ${failure.message}`,
          }),
      ),
    )
    if (flags.json) return yield* json({ environment, copied: keys })
    const copied =
      source === undefined ? "" : ` with ${keys.length === 1 ? "1 key" : `${keys.length} keys`} from ${source}`
    yield* line(`created ${slug}/${environment.name}${copied}`)
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
    const { endpoint, project: slug } = yield* projectOf(flags)
    if (!flags.yes) {
      if (!stdinIsTerminal())
        return yield* usage(`deleting ${flags.name} deletes its secrets and their history: pass --yes to do it`)
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
