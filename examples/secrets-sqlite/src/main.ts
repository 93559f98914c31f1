/**
 * The Secrets core in a plain program, on SQLite, with no HTTP: a person signs in, creates a project, sets a
 * secret twice, reads it back decrypted, lists its versions and reads the first one. The database file holds only
 * sealed values (checked on the file itself), and a second runtime over the same file, with the same master key,
 * reads the secret again: nothing lives in the process but the key.
 *
 * The adapters are the ones `coffer serve` uses: the SQL store and accounts over `@coffer/adapter-sqlite`
 * (better-sqlite3 on Node, bun:sqlite on Bun), migrated first, and XChaCha20-Poly1305 envelope encryption under
 * the master key.
 *
 * Run it: `pnpm --filter @coffer/example-secrets-sqlite start` (after `pnpm build`), or through its test.
 */
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { XChaCha20Poly1305 } from "@coffer/adapter-crypto"
import { MemoryCache } from "@coffer/adapter-memory"
import { migrate, SqlAccounts, SqlKeyCanary, SqlSecretStore } from "@coffer/adapter-sql"
import { Sqlite } from "@coffer/adapter-sqlite"
import { Clock, Random } from "@coffer/kernel"
import {
  createProject,
  getProject,
  getSecret,
  getVersion,
  listVersions,
  type SessionActor,
  setSecret,
  signIn,
} from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"

export interface Options {
  /** The SQLite file; created with its directory when missing. */
  readonly database: string
  /** Base64 of 32 bytes (`COFFER_MASTER_KEY`): it seals every project's data key. */
  readonly masterKey: string
}

/** Store, accounts, cipher and an in-process cache over one SQLite file, with the database migrated before anything else runs. */
const secretsLayer = (options: Options) => {
  const database = Layer.effectDiscard(migrate).pipe(Layer.provideMerge(Sqlite.layer({ filename: options.database })))
  const cipher = Layer.unwrap(
    Effect.map(XChaCha20Poly1305.parseMasterKey(options.masterKey), (masterKey) =>
      XChaCha20Poly1305.layer({ masterKey }),
    ),
  )
  // The in-process cache: checks and sign-ins go through the Cache port (Redis in a multi-instance deployment).
  const platform = Layer.mergeAll(Clock.layer, Random.layer, MemoryCache.layer)
  return Layer.mergeAll(SqlSecretStore.layer, SqlAccounts.layer, SqlKeyCanary.layer, cipher).pipe(
    Layer.provideMerge(Layer.merge(database, platform)),
  )
}

const PROJECT = "Payments API"
const KEY = "STRIPE_KEY"
const FIRST = "sk_test_first_value"
const SECOND = "sk_test_second_value"

const walkThrough = (print: (line: string) => void) =>
  Effect.gen(function* () {
    // Who acts: an account matched by issuer and subject, as a sign-in through the identity provider makes it.
    const user = yield* signIn({ issuer: "urn:example:ci", subject: "deploy-bot", email: "deploy@example.com" })
    const caller: SessionActor = { kind: "session", userId: user.id, email: user.email, ipAddress: null }
    print(`signed in as ${user.email}`)

    const { project } = yield* createProject(caller, { name: PROJECT })
    const { environments } = yield* getProject(caller, project.slug)
    print(`created ${project.name} (${project.slug}), environments ${environments.map((e) => e.name).join(", ")}`)

    for (const value of [FIRST, SECOND]) {
      const written = yield* setSecret(caller, project.slug, "production", { key: KEY, value })
      print(`set ${KEY} in production: ${written.action}, version ${written.version}`)
    }

    const { secret } = yield* getSecret(caller, project.slug, "production", KEY)
    print(`${KEY} = ${secret.value} (version ${secret.version})`)

    const { versions } = yield* listVersions(caller, project.slug, "production", KEY)
    print(`versions: ${versions.map((v) => `${v.version} by ${v.userEmail}`).join(", ")}`)
    const first = yield* getVersion(caller, project.slug, "production", KEY, "1")
    print(`version 1 was ${first.secret.value}`)
    return { caller, slug: project.slug }
  })

/** Whether a plaintext appears anywhere in the database's files (the WAL included, while it exists). */
const onDisk = (database: string, plaintext: string): boolean =>
  [database, `${database}-wal`].some(
    (file) => existsSync(file) && readFileSync(file).includes(Buffer.from(plaintext, "utf8")),
  )

/** Who signed in, and where their secret lives. */
export interface SignedIn {
  readonly caller: SessionActor
  readonly slug: string
}

/** The current value of the secret, read by a runtime of its own over the database file. */
export const readBack = async (options: Options, signedIn: SignedIn): Promise<string> => {
  const runtime = ManagedRuntime.make(secretsLayer(options))
  try {
    const { secret } = await runtime.runPromise(getSecret(signedIn.caller, signedIn.slug, "production", KEY))
    return secret.value
  } finally {
    await runtime.dispose()
  }
}

/** Runs the example, printing one line per step; returns who signed in and the project. */
export const main = async (
  print: (line: string) => void = console.log,
  options: Options = {
    database: join(mkdtempSync(join(tmpdir(), "coffer-example-")), "secrets.db"),
    masterKey: process.env.COFFER_MASTER_KEY ?? randomBytes(32).toString("base64"),
  },
): Promise<SignedIn> => {
  const first = ManagedRuntime.make(secretsLayer(options))
  let signedIn: SignedIn
  try {
    signedIn = await first.runPromise(walkThrough(print))
  } finally {
    await first.dispose()
  }
  print(
    [FIRST, SECOND].some((value) => onDisk(options.database, value))
      ? "on disk: a secret value in plaintext!"
      : "on disk: no secret value in plaintext",
  )

  // A new runtime on the same file: the project, its data key and the sealed versions were all in SQLite.
  print(`after reopening: ${KEY} = ${await readBack(options, signedIn)}`)
  return signedIn
}

// Run when started as a program (`node dist/main.js`), not when a test imports `main`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
