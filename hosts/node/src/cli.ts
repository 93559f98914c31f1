/**
 * The `coffer` command: parses arguments, reads settings, and runs a subcommand. Every failure the operator
 * can fix ends in one line on stderr and exit code 1, never a stack trace. The user commands (login, init,
 * secrets, environments, schemas, completions) belong to `@coffer/cli`, which runs them with its own exit codes.
 */
import { parseArgs } from "node:util"
import { StoreUnavailable } from "@coffer/kernel"
import * as Cause from "effect/Cause"
import { accountsCommand } from "./accountsCommand.js"
import { loadSettings, loadSettingsWithoutKey, SettingsRejected } from "./config/hostSettings.js"
import { commands } from "./help.js"
import { keysCommand } from "./keysCommand.js"
import type { Listener } from "./listen.js"
import { runMigrations } from "./migrateCommand.js"
import { type Running, SERVICES, type Service, serve } from "./serve.js"

class UsageError extends Error {}

/**
 * The user commands, loaded only when one runs: a server never needs them, and their command parser is a good part
 * of what a started host would otherwise keep in memory.
 */
const userCommands = () => import("@coffer/cli")

/** The host's own commands, as suggested for a mistyped one. */
const SERVER_COMMANDS: ReadonlyArray<string> = ["serve", "migrate", "accounts", "keys", "help"]

/** The host's own commands; every other name is offered to the user commands. */
const HOST_COMMANDS: ReadonlyArray<string> = [...SERVER_COMMANDS, "--help", "-h"]

/**
 * Flags the user commands answer before any command (their README): `--version` (and its `-v`, as every user
 * command's help lists it), `--completions <shell>`.
 */
const USER_FLAGS: ReadonlyArray<string> = ["--version", "--completions"]

const isUserFlag = (arg: string) =>
  arg === "-v" || USER_FLAGS.some((flag) => arg === flag || arg.startsWith(`${flag}=`))

/** Turns anything thrown into one line fit for an operator: no stack, no secrets. */
const describe = (error: unknown): string => {
  if (Cause.isCause(error)) return describe(Cause.squash(error))
  if (error instanceof Error) return error.message
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message)
  return String(error)
}

/** The setting that names each store, for the line of a command that one of them stopped. */
const STORE_SETTINGS = { database: "COFFER_DATABASE_URL", cache: "COFFER_REDIS_URL" } as const

/**
 * A command stopped by a store it could not reach, open or use (a database Redis refuses): the line names the
 * setting to check, as a bad setting's line does ("Postgres LISTEN failed: connect ECONNREFUSED" alone did not say
 * where to look).
 */
const describeFailure = (error: unknown): string => {
  const squashed = Cause.isCause(error) ? Cause.squash(error) : error
  const line = describe(squashed)
  return squashed instanceof StoreUnavailable ? `${STORE_SETTINGS[squashed.store]}: ${line}` : line
}

const serveCommand = async (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, listener?: Listener) => {
  const { values } = parseArgs({
    args: [...args],
    options: { only: { type: "string" }, help: { type: "boolean", short: "h" } },
    strict: true,
  })
  if (values.help) return console.log(commands.serve)
  if (values.only !== undefined && !SERVICES.includes(values.only as Service)) {
    throw new UsageError(`--only: expected schemas or secrets, got "${values.only}"`)
  }
  const settings = loadSettings(env)
  // Handlers go in before the first "listening" line is printed: a supervisor may signal as soon as it sees it.
  let running: Running | undefined
  let stopping: NodeJS.Signals | undefined
  const stop = (signal: NodeJS.Signals) => {
    if (stopping !== undefined && running === undefined) return
    stopping = signal
    if (running === undefined) return
    const closing = running
    running = undefined
    // After the request lines logged before the signal, which would otherwise follow it.
    closing
      .say(`coffer: ${signal} received, finishing requests in flight`)
      .then(() => closing.close())
      .then(
        () => process.exit(0),
        (error) => {
          console.error(`coffer: shutdown failed: ${describe(error)}`)
          process.exit(1)
        },
      )
  }
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  running = await serve({
    settings,
    listener,
    services: values.only === undefined ? SERVICES : [values.only as Service],
  })
  if (stopping !== undefined) stop(stopping)
}

const migrateCommand = async (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) => {
  const { values } = parseArgs({ args: [...args], options: { help: { type: "boolean", short: "h" } }, strict: true })
  if (values.help) return console.log(commands.migrate)
  const applied = await runMigrations(loadSettingsWithoutKey(env))
  console.log(applied.length === 0 ? "coffer: database is up to date" : `coffer: applied ${applied.join(", ")}`)
}

/** Runs the `coffer` command; `listener` is the HTTP server `serve` uses (Node's by default, Bun's for `coffer-bun`). */
export const main = async (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = process.env,
  listener?: Listener,
): Promise<void> => {
  const [command, ...rest] = argv
  if (command !== undefined && !HOST_COMMANDS.includes(command)) {
    const { runCli, USER_COMMANDS } = await userCommands()
    if (USER_COMMANDS.includes(command) || isUserFlag(command)) {
      process.exitCode = await runCli(argv, { env })
      return
    }
  }
  try {
    switch (command) {
      case "serve":
        return await serveCommand(rest, env, listener)
      case "migrate":
        return await migrateCommand(rest, env)
      case "accounts":
        return await accountsCommand(rest, env)
      case "keys":
        return await keysCommand(rest, env)
      case undefined:
      case "help":
      case "--help":
      case "-h": {
        const topic = rest[0] as keyof typeof commands | undefined
        if (topic !== undefined && !(topic in commands)) {
          const { runCli, USER_COMMANDS } = await userCommands()
          if (USER_COMMANDS.includes(topic)) {
            process.exitCode = await runCli([...rest, "--help"], { env })
            return
          }
        }
        console.log(topic !== undefined && topic in commands ? commands[topic] : commands.main)
        return
      }
      default: {
        // As the user commands answer a mistyped one: the nearest commands, the server's own among them.
        const { coffer, suggestCommands } = await userCommands()
        const nearest = suggestCommands(coffer, ["coffer"], command, SERVER_COMMANDS).map((line) => `\`${line}\``)
        const hint = nearest.length === 0 ? "" : ` (did you mean ${nearest.join(" or ")}?)`
        throw new UsageError(`unknown command "${command}"${hint}; run \`coffer --help\``)
      }
    }
  } catch (error) {
    if (error instanceof SettingsRejected) {
      for (const line of error.lines) console.error(`coffer: ${line}`)
    } else {
      console.error(`coffer: ${describeFailure(error)}`)
    }
    process.exitCode = 1
  }
}
