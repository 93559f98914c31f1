/**
 * `coffer keys`: the operator's tool for the master key and the data keys (adapters/crypto README "Rotating the
 * master key", core/secrets README "Data keys").
 *
 * - `rotate`: re-wraps every project's data key under the current master key (`COFFER_MASTER_KEY`), unwrapping
 *   with the old one given in `COFFER_MASTER_KEY_PREVIOUS`. Only the wraps change, each with a compare-and-set,
 *   so it is safe while the service runs, and values written before read the same afterwards. Run it after
 *   restarting every instance with the new key current and the old one previous; once it reports nothing left,
 *   restart without `COFFER_MASTER_KEY_PREVIOUS`.
 * - `rotate --data-keys [--project SLUG]`: gives each project (or the one named) a fresh data key version and
 *   re-seals its values under it, while the service runs (`rotateProjectDataKeys`). It first checks that the
 *   configured master key opens this database's data, so a wrong key changes nothing. Counts are printed, never a
 *   value or a key; values that did not open are left as they were and make the exit code 1.
 *
 * It works on the configured database directly, migrating it first, so it needs no running server. Key ids
 * (never keys) are printed; a data key that no configured master key can open is reported and the exit code is 1.
 */
import { parseArgs } from "node:util"
import { migrate, SqlKeyCanary, SqlSecretStore } from "@coffer/adapter-sql"
import { MasterKeyCheck } from "@coffer/kernel"
import { type DataKeyRotationReport, type RewrapReport, rewrapDataKeys, rotateProjectDataKeys } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
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
      // A keyring that opens nothing here (a wrong COFFER_MASTER_KEY, no previous key) is said in one line, not as
      // one failure per data key.
      yield* MasterKeyCheck.verify
      const report = yield* rewrapDataKeys()
      // The start's master key check opens the canary: it moves to the new key with the projects' keys (a key
      // that opens no project's data key is reported as such first).
      if (report.failed.length === 0) yield* MasterKeyCheck.rewrapCanary
      return report
    }).pipe(
      Effect.catchTag("MasterKeyMismatch", (error) => Effect.fail(new Error(`keys rotate: ${error.message}`))),
      Effect.provide(Layer.mergeAll(SqlSecretStore.layer, SqlKeyCanary.layer, cipherLayer(settings))),
      Effect.provide(database),
    ),
  )
}

/** Rotates the data keys of every project, or of the one with `slug`, on the configured database. */
export const rotateDataKeyVersions = (
  env: NodeJS.ProcessEnv,
  slug: string | undefined,
): Promise<DataKeyRotationReport> => {
  const settings = loadSettings(env)
  const database = databaseLayer(settings)
  return Effect.runPromise(
    Effect.gen(function* () {
      yield* migrate
      // A master key that does not open this database's data would seal fresh keys nobody's values are under.
      yield* MasterKeyCheck.verify
      return yield* rotateProjectDataKeys({ slug })
    }).pipe(
      Effect.catchTag("ProjectNotFound", () =>
        Effect.fail(new Error(`keys rotate: no project has the slug "${slug}"`)),
      ),
      Effect.catchTag("MasterKeyMismatch", (error) => Effect.fail(new Error(`keys rotate: ${error.message}`))),
      Effect.provide(Layer.mergeAll(SqlSecretStore.layer, SqlKeyCanary.layer, cipherLayer(settings))),
      Effect.provide(database),
    ),
  )
}

const printDataKeyReport = (report: DataKeyRotationReport) => {
  let unreadable = 0
  let failed = 0
  for (const project of report.projects) {
    if (project.failed !== undefined) {
      failed++
      console.error(`coffer: project ${project.slug}: ${project.failed}`)
      continue
    }
    unreadable += project.unreadable
    const how = project.newKey ? "new" : "resumed"
    const upgraded = project.upgraded > 0 ? ` (${project.upgraded} upgraded from csv1)` : ""
    const left = project.unreadable > 0 ? `; ${project.unreadable} did not open and were left as they were` : ""
    console.log(
      `coffer: project ${project.slug}: data key version ${project.dataKeyVersion} (${how}): re-sealed ${project.resealed} values${upgraded}${left}`,
    )
  }
  const done = report.projects.length - failed
  console.log(`coffer: rotated the data keys of ${done} of ${report.projects.length} projects`)
  if (failed > 0 || unreadable > 0) {
    throw new Error(
      `keys rotate: ${failed > 0 ? `${failed} project(s) not rotated` : `${unreadable} value(s) did not open`}; see above, then run again`,
    )
  }
}

export const keysCommand = async (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<void> => {
  const [name, ...rest] = args
  if (name === undefined || name === "--help" || name === "-h" || name === "help") return console.log(commands.keys)
  if (name !== "rotate") throw new Error(`keys: unknown subcommand "${name}"; run \`coffer keys --help\``)
  const { values } = parseArgs({
    args: rest,
    options: {
      help: { type: "boolean", short: "h" },
      "data-keys": { type: "boolean" },
      project: { type: "string" },
    },
    strict: true,
  })
  if (values.help) return console.log(commands["keys rotate"])
  if (values["data-keys"]) return printDataKeyReport(await rotateDataKeyVersions(env, values.project))
  if (values.project !== undefined) throw new Error("keys rotate: --project goes with --data-keys")
  const report = await rotateDataKeys(env)
  console.log(
    `coffer: re-wrapped ${report.rewrapped} of ${report.total} project data keys under master key ${report.currentKeyId}` +
      ` (${report.current} already under it)`,
  )
  if (report.failed.length > 0) {
    // One line per project and reason, its data key versions named: a project rotated often has many.
    const byProject = new Map<string, Array<(typeof report.failed)[number]>>()
    for (const failure of report.failed) {
      const key = `${failure.projectId}\u0000${failure.reason}`
      const same = byProject.get(key)
      if (same === undefined) byProject.set(key, [failure])
      else same.push(failure)
    }
    for (const failures of byProject.values()) {
      const { slug, reason } = failures[0]!
      const versions = failures.map((failure) => failure.version).sort((a, b) => a - b)
      const which =
        versions.length === 1 ? `data key version ${versions[0]}` : `data key versions ${versions.join(", ")}`
      console.error(`coffer: project ${slug}, ${which}: ${reason}`)
    }
    throw new Error(
      `keys rotate: ${report.failed.length} data key(s) could not be opened; add the master key that wrapped them to COFFER_MASTER_KEY_PREVIOUS and run again`,
    )
  }
}
