/**
 * `coffer accounts`: the operator's tool for the secrets service's accounts (seed 001 §4: a sign-in whose
 * e-mail an older account holds answers 409 "until an operator links the accounts with the command-line
 * tool"). It works on the configured database directly, migrating it first, so it needs no running server.
 *
 * - `list [--json]`: every account, oldest first, with the identities (issuer, subject) that sign in to it.
 * - `link <userId> <issuer> <subject>`: the identity signs in to that account from now on.
 * - `unlink <issuer> <subject>`: the identity no longer signs in to any account (its next sign-in is a first one),
 *   and the sessions it started end at once.
 */
import { parseArgs } from "node:util"
import { migrate, SqlAccounts } from "@coffer/adapter-sql"
import { type Sessions, toIso } from "@coffer/kernel"
import { Accounts, unlinkIdentity } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { loadSettingsWithoutKey } from "./config/hostSettings.js"
import { commands } from "./help.js"
import { cacheLayer, databaseLayer, platformLayer, sessionsOnDatabase } from "./layers.js"

type Subcommand = "list" | "link" | "unlink"

const positionals: Record<Subcommand, ReadonlyArray<string>> = {
  list: [],
  link: ["userId", "issuer", "subject"],
  unlink: ["issuer", "subject"],
}

const isSubcommand = (name: string | undefined): name is Subcommand =>
  name !== undefined && Object.hasOwn(positionals, name)

/**
 * Runs `program` on the configured database, migrated, with the secrets service's accounts and sessions as the
 * services have them (`sessionsOnDatabase`): where they cache sessions, this command ends them through the same
 * cache, so that a running server refuses an unlinked identity's sessions on its next request.
 */
const onDatabase = <A, E>(
  env: NodeJS.ProcessEnv,
  program: Effect.Effect<A, E, Accounts.Accounts | Sessions.Sessions>,
) => {
  // Accounts and sessions hold nothing sealed: an operator's command needs no key that opens every secret.
  const settings = loadSettingsWithoutKey(env)
  const sessions = sessionsOnDatabase(settings, "secrets").pipe(Layer.provide(cacheLayer(settings)))
  return Effect.runPromise(
    Effect.gen(function* () {
      yield* migrate
      return yield* Effect.provide(
        program,
        Layer.mergeAll(SqlAccounts.layer, sessions).pipe(Layer.provide(platformLayer)),
      )
    }).pipe(Effect.provide(databaseLayer(settings))),
  )
}

/** An account as operators read it, in the list and its `--json` form: times as ISO 8601. */
const accountView = (account: Accounts.Account) => ({
  ...account,
  createdAt: toIso(account.createdAt),
  identities: account.identities.map((identity) => ({ ...identity, createdAt: toIso(identity.createdAt) })),
})

const describeAccount = (account: ReturnType<typeof accountView>): string => {
  const head = `${account.id}  ${account.email}  created ${account.createdAt}`
  const identities =
    account.identities.length === 0
      ? ["    (no identity: nobody signs in to this account)"]
      : account.identities.map(
          (identity) => `    ${identity.issuer}  ${identity.subject}  linked ${identity.createdAt}`,
        )
  return [head, ...identities].join("\n")
}

export const accountsCommand = async (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<void> => {
  const [name, ...rest] = args
  if (name === undefined || name === "--help" || name === "-h" || name === "help") return console.log(commands.accounts)
  if (!isSubcommand(name)) throw new Error(`accounts: unknown subcommand "${name}"; run \`coffer accounts --help\``)
  const { values, positionals: given } = parseArgs({
    args: rest,
    options: { help: { type: "boolean", short: "h" }, ...(name === "list" ? { json: { type: "boolean" } } : {}) },
    allowPositionals: true,
    strict: true,
  })
  if (values.help) return console.log(commands[`accounts ${name}`])
  const expected = positionals[name]
  if (given.length !== expected.length) {
    const usage = [`coffer accounts ${name}`, ...expected.map((field) => `<${field}>`)].join(" ")
    throw new Error(`accounts ${name}: expected ${usage}; run \`coffer accounts ${name} --help\``)
  }
  const accounts = Accounts.Accounts
  switch (name) {
    case "list": {
      const listed = (
        await onDatabase(
          env,
          Effect.flatMap(accounts, (store) => store.list()),
        )
      ).map(accountView)
      if (values.json === true) return console.log(JSON.stringify(listed, null, 2))
      return console.log(listed.length === 0 ? "coffer: no accounts" : listed.map(describeAccount).join("\n"))
    }
    case "link": {
      const [userId = "", issuer = "", subject = ""] = given
      const user = await onDatabase(
        env,
        Effect.gen(function* () {
          const store = yield* accounts
          yield* store.link(userId, issuer, subject)
          return yield* store.findById(userId)
        }),
      )
      return console.log(`coffer: ${issuer} ${subject} now signs in to account ${userId} (${user?.email ?? "?"})`)
    }
    case "unlink": {
      const [issuer = "", subject = ""] = given
      const ended = await onDatabase(env, unlinkIdentity(issuer, subject))
      const sessions = ended === 1 ? "1 session" : `${ended} sessions`
      return console.log(`coffer: ${issuer} ${subject} no longer signs in to any account; ${sessions} ended`)
    }
  }
}
