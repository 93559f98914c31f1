/**
 * `coffer keys`: the operator's tool for the master key (adapters/crypto README "Rotating the master key").
 *
 * - `rotate`: re-wraps every project's data key under the current master key (`COFFER_MASTER_KEY`), unwrapping
 *   with the old one given in `COFFER_MASTER_KEY_PREVIOUS`. Only the wraps change, each with a compare-and-set,
 *   so it is safe while the service runs, and values written before read the same afterwards. Run it after
 *   restarting every instance with the new key current and the old one previous; once it reports nothing left,
 *   restart without `COFFER_MASTER_KEY_PREVIOUS`.
 *
 * It works on the configured database directly, migrating it first, so it needs no running server. Key ids
 * (never keys) are printed; a data key that no configured master key can open is reported and the exit code is 1.
 */
import { parseArgs } from "node:util"
import { migrate, SqlKeyCanary, SqlSecretStore } from "@coffer/adapter-sql"
import { MasterKeyCheck } from "@coffer/kernel"
import { type RewrapReport, rewrapDataKeys } from "@coffer/secrets"
import { Effect, Layer } from "effect"
import { loadSettings } from "./config/hostSettings.js"
import { commands } from "./help.js"
import { cipherLayer, databaseLayer } from "./layers.js"

/** Re-wraps every data key on the configured database; the report of what was done. */
export const rotateDataKeys = (env: NodeJS.ProcessEnv): Promise<RewrapReport> => {
  const settings = loadSettings(env)
  const database = databaseLayer(settings)
  return Effect.runPromise(
    Effect.gen(function* () {
      yield* migrate
      const report = yield* rewrapDataKeys()
      // The start's master key check opens the canary: it moves to the new key with the projects' keys (a key
      // that opens no project's data key is reported as such first).
      if (report.failed.length === 0) yield* MasterKeyCheck.rewrapCanary
      return report
    }).pipe(
      Effect.provide(Layer.mergeAll(SqlSecretStore.layer, SqlKeyCanary.layer, cipherLayer(settings))),
      Effect.provide(database),
    ),
  )
}

export const keysCommand = async (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<void> => {
  const [name, ...rest] = args
  if (name === undefined || name === "--help" || name === "-h" || name === "help") return console.log(commands.keys)
  if (name !== "rotate") throw new Error(`keys: unknown subcommand "${name}"; run \`coffer keys --help\``)
  const { values } = parseArgs({ args: rest, options: { help: { type: "boolean", short: "h" } }, strict: true })
  if (values.help) return console.log(commands["keys rotate"])
  const report = await rotateDataKeys(env)
  console.log(
    `coffer: re-wrapped ${report.rewrapped} of ${report.total} project data keys under master key ${report.currentKeyId}` +
      ` (${report.current} already under it)`,
  )
  if (report.failed.length > 0) {
    for (const failure of report.failed) console.error(`coffer: project ${failure.projectId}: ${failure.reason}`)
    throw new Error(
      `keys rotate: ${report.failed.length} data key(s) could not be opened; add the master key that wrapped them to COFFER_MASTER_KEY_PREVIOUS and run again`,
    )
  }
}
