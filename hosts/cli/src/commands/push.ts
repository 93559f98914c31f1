/**
 * `coffer secrets push FILE` and `coffer secrets import FILE`: write a `.env` or JSON file into an environment.
 *
 * `push` makes the environment hold the file: it shows which keys it adds and changes (and, with `--prune`,
 * deletes), never their values, then applies them unless `--dry-run`. Deleting takes a secret's history with it,
 * so a push that would delete asks first, as `secrets delete` does (on a terminal, or `--yes`): a file emptied by
 * mistake then deletes nothing unasked. `import` only brings keys in: a key that
 * already holds another value is a conflict, and `--on-conflict` decides (`fail`, the default, writes nothing and
 * exits 4; `skip` keeps the old value; `overwrite` replaces it). Keys whose value is already the same are left
 * alone by both, so running either twice changes nothing the second time. Under `fail` and `skip`, `import` writes
 * each new key only as a new one (`expectedVersion` 0): one someone else adds while it runs is a conflict too,
 * found by the service, never overwritten.
 */
import { Argument, Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import { confirmYesNo, deleteQuestion, describeKeys } from "../confirm.js"
import { parseSecretsFile, repeatedKeys, toMap } from "../dotenvFile.js"
import { refused, usage } from "../failure.js"
import { json, line, note } from "../output.js"
import { exportJson, type Target } from "../secretsApi.js"
import { applyPlan, checkPlan, currentForWriting, type Plan, planPush } from "../secretsPlan.js"
import { readFileOrStdin } from "../stdin.js"
import { targetFor } from "../target.js"
import { json as jsonFlag, settingsOf, target } from "./flags.js"

/**
 * The keys and values of `file` (`-`: stdin). A key given twice keeps its last value, as when a shell sources the
 * file, and is named on stderr as the web app's import names it: one of the two was likely meant to go.
 */
const readEntries = (file: string) =>
  Effect.gen(function* () {
    const name = file === "-" ? "stdin" : file
    const entries = yield* parseSecretsFile(name, yield* readFileOrStdin(file, "file"))
    const repeated = repeatedKeys(entries)
    if (repeated.length > 0)
      yield* note(`${name}: given more than once (the last value is used): ${repeated.join(", ")}`)
    return toMap(entries)
  })

const describePlan = (plan: Plan) => [
  ...plan.add.map((key) => `+ ${key}`),
  ...plan.change.map((key) => `~ ${key}`),
  ...plan.remove.map((key) => `- ${key}`),
]

const summary = (plan: Plan) =>
  `${plan.add.length} to add, ${plan.change.length} to change, ${plan.remove.length} to delete`

const file = Argument.String("FILE").pipe(
  Argument.withDescription("a .env file, or a JSON object (numbers and true/false taken as their text); - for stdin"),
)

export const push = Command.make(
  "push",
  {
    ...target,
    file,
    dryRun: Flag.Boolean("dry-run").pipe(
      Flag.withDescription("show what would change, change nothing"),
      Flag.withDefault(false),
    ),
    prune: Flag.Boolean("prune").pipe(
      Flag.withDescription("also delete keys the file does not hold (asks first, unless --yes)"),
      Flag.withDefault(false),
    ),
    yes: Flag.Boolean("yes").pipe(
      Flag.withAlias("y"),
      Flag.withDescription("delete what --prune would without asking (needed where stdin is not a terminal)"),
      Flag.withDefault(false),
    ),
    json: jsonFlag,
  },
  Effect.fn(function* (flags) {
    const values = yield* readEntries(flags.file)
    // An empty input is far more often a generator that failed upstream (`gen | coffer secrets push - --prune`)
    // than a wish to empty the environment, which `secrets delete` says in so many words.
    if (values.size === 0 && flags.prune && !flags.dryRun) {
      const name = flags.file === "-" ? "stdin" : flags.file
      return yield* usage(
        `${name} holds no keys: with --prune that would delete every key of the environment; nothing was changed ` +
          "(to delete them, use coffer secrets delete)",
      )
    }
    const where = yield* targetFor(settingsOf(flags))
    const plan = planPush(yield* flags.dryRun ? exportJson(where) : currentForWriting(where), values, flags.prune)
    yield* checkPlan(plan, values)
    if (flags.json) yield* json({ ...plan, dryRun: flags.dryRun })
    else {
      const lines = describePlan(plan)
      if (lines.length > 0) yield* line(lines.join("\n"))
      yield* line(
        `${where.project}/${where.environment}: ${summary(plan)}${flags.dryRun ? " (dry run: nothing changed)" : ""}`,
      )
    }
    if (flags.dryRun) return
    if (plan.remove.length > 0) {
      const place = `${where.project}/${where.environment}`
      yield* confirmYesNo({
        yes: flags.yes,
        question: deleteQuestion(plan.remove, place),
        refusal: `--prune would delete ${describeKeys(plan.remove)} from ${place}, with their history: pass --yes to do it; nothing was changed`,
        untouched: "nothing was changed",
      })
    }
    yield* applyPlan(where, plan, values)
    // The plan was said before anything changed; this says it is done (nothing when there was nothing to do).
    if (!flags.json && plan.add.length + plan.change.length + plan.remove.length > 0)
      yield* line(`${where.project}/${where.environment}: pushed`)
  }),
).pipe(
  Command.withDescription("Make an environment hold a .env or JSON file's keys; shows keys, never values"),
  Command.withExamples([
    { command: "coffer secrets push --env staging .env --dry-run", description: "what would change" },
    {
      command: "coffer secrets push --env staging .env --prune --yes",
      description: "also delete keys not in the file, in a script",
    },
  ]),
)

export type OnConflict = "fail" | "skip" | "overwrite"

/** `--on-conflict`, as `import` and `copy` take it. */
export const onConflict = Flag.Literals("on-conflict", ["fail", "skip", "overwrite"]).pipe(
  Flag.withDescription("when a key already holds another value: fail (write nothing), skip or overwrite"),
  Flag.withDefault("fail"),
)

/**
 * Brings `values` into `where` by `import`'s rules (the module's comment), and says what it did: shared by
 * `import` (a file's keys) and `copy` (another environment's).
 */
export const importInto = (
  where: Target,
  values: ReadonlyMap<string, string>,
  conflicts: OnConflict,
  asJson: boolean,
) =>
  Effect.gen(function* () {
    const { add, change } = planPush(yield* currentForWriting(where), values, false)
    if (change.length > 0 && conflicts === "fail") {
      return yield* refused(
        `${change.length} key(s) already hold other values: ${change.join(", ")}; nothing was written (use --on-conflict skip or overwrite)`,
      )
    }
    const planned: Plan = { add, change: conflicts === "overwrite" ? change : [], remove: [] }
    yield* checkPlan(planned, values)
    // Said once it is done: the summary is in the past tense, and a write refused halfway must not precede it.
    const addedMeanwhile = yield* applyPlan(where, planned, values, conflicts)
    const plan: Plan = { ...planned, add: add.filter((key) => !addedMeanwhile.includes(key)) }
    const skippedKeys = [...(conflicts === "skip" ? change : []), ...addedMeanwhile].sort()
    if (asJson) return yield* json({ ...plan, skipped: skippedKeys })
    const lines = describePlan(plan)
    if (lines.length > 0) yield* line(lines.join("\n"))
    const skipped = skippedKeys.length > 0 ? `, ${skippedKeys.length} skipped` : ""
    yield* line(
      `${where.project}/${where.environment}: ${plan.add.length} added, ${plan.change.length} overwritten${skipped}`,
    )
  })

export const importCommand = Command.make(
  "import",
  {
    ...target,
    file,
    onConflict,
    json: jsonFlag,
  },
  Effect.fn(function* (flags) {
    const values = yield* readEntries(flags.file)
    const where = yield* targetFor(settingsOf(flags))
    return yield* importInto(where, values, flags.onConflict, flags.json)
  }),
).pipe(
  Command.withDescription("Bring a .env or JSON file's keys into an environment, deciding what to do on conflicts"),
  Command.withExamples([
    { command: "coffer secrets import --env development legacy.env", description: "stops if a key differs" },
    { command: "coffer secrets import --env development old.json --on-conflict skip", description: "keep current" },
  ]),
)
