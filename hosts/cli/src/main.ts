/**
 * Running the user commands: parses `argv` with the `effect/cli` tree, runs the chosen command, and turns the
 * outcome into an exit code (README "Exit codes"): 0 success, 1 usage, 2 authentication, 3 not found, 4 refused,
 * 5 server or network, or `run`'s child's own code. Every failure is one `coffer: …` line on stderr; nothing
 * prints a stack trace.
 */
import * as NodeChildProcessSpawner from "@effect/platform-node-shared/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node-shared/NodeFileSystem"
import * as NodePath from "@effect/platform-node-shared/NodePath"
import * as NodeStdio from "@effect/platform-node-shared/NodeStdio"
import * as NodeTerminal from "@effect/platform-node-shared/NodeTerminal"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import { CliConfig, CliError, CliOutput, Command, GlobalFlag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { coffer } from "./command.js"
import { CofferFailure, EXIT_CODES } from "./failure.js"
import { RequestTimeout } from "./http.js"
import { Invocation } from "./invocation.js"
import { guardOutput, OUTPUT_CLOSED_CODE, OutputClosed } from "./output.js"
import { suggestCommands } from "./suggest.js"
import { version } from "./version.js"

/** An unknown command with the commands to suggest instead, each as the whole command line (`suggest.ts`). */
const withSuggestions = (error: CliError.CliError): CliError.CliError =>
  error._tag === "UnknownSubcommand"
    ? new CliError.UnknownSubcommand({
        subcommand: error.subcommand,
        parent: error.parent,
        suggestions: suggestCommands(coffer, error.parent ?? [coffer.name], error.subcommand),
      })
    : error

/**
 * Help and version to stdout; a bad invocation as its errors and a pointer to `--help` on stderr, so a script
 * reading stdout never gets a help page instead of data.
 */
const presenter: CliOutput.Presenter = {
  present: Effect.fnUntraced(function* (event) {
    const formatter = CliOutput.defaultFormatter({ colors: false })
    switch (event._tag) {
      case "Help":
        return yield* Console.log(formatter.formatHelpDoc(event.helpDoc))
      case "Version":
        return yield* Console.log(formatter.formatVersion(event.name, event.version))
      case "InvalidInvocation":
        yield* Console.error(formatter.formatErrors(event.errors.map(withSuggestions)))
        // `coffer secrets run sh -c …` reads the child's own flags as its own: say where they belong.
        if (event.commandPath.at(-1) === "run" && event.errors.some((error) => error._tag === "UnrecognizedOption"))
          yield* Console.error(
            `The command to run and its flags go after \`--\`: \`${event.commandPath.join(" ")} [flags] -- <command> [args…]\`.`,
          )
        return yield* Console.error(`Run \`${event.commandPath.join(" ")} --help\` for usage.`)
    }
  }),
}

const platform = Layer.mergeAll(
  NodeFileSystem.layer,
  NodePath.layer,
  NodeTerminal.layer,
  NodeStdio.layer,
  NodeChildProcessSpawner.layer.pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))),
  CliOutput.layerPresenter(presenter),
  // No wizard and no log-level flag: the commands log nothing and ask nothing beyond what they document.
  CliConfig.layer({ builtIns: [GlobalFlag.Help, GlobalFlag.Version, GlobalFlag.Completions] }),
)

const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, " ").trim()

/** The exit code for a failed run, after saying why on stderr (parse errors were already presented). */
const failureCode = (cause: Cause.Cause<unknown>): number => {
  if (Cause.hasInterruptsOnly(cause)) return 130
  const error = Cause.squash(cause)
  if (CliError.isCliError(error)) return EXIT_CODES.usage
  if (error instanceof OutputClosed) return OUTPUT_CLOSED_CODE
  if (error instanceof CofferFailure) {
    process.stderr.write(`coffer: ${oneLine(error.message)}\n`)
    return EXIT_CODES[error.kind]
  }
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`coffer: unexpected failure: ${oneLine(message)}\n`)
  return EXIT_CODES.usage
}

/**
 * A short flag with its value joined (`-pshop`) or several short flags in one (`-eh`): the parser reads every
 * letter as a flag of its own, and one `h` or `v` among them prints the help or the version and exits 0, so
 * `coffer secrets run -pshop -- ./deploy.sh` would succeed without running anything. No user command has short
 * flags that combine, so such a word before `--` is refused, saying how to write it.
 */
const joinedShortFlag = (argv: ReadonlyArray<string>): string | undefined => {
  const end = argv.indexOf("--")
  return (end === -1 ? argv : argv.slice(0, end)).find((arg) => /^-[A-Za-z][^=]/.test(arg))
}

/** `run`'s flags that take a value (the global `--completions` included): the word after one is its value. */
const RUN_VALUE_FLAGS = new Set([
  "--url",
  "--project",
  "-p",
  "--env",
  "-e",
  "--only",
  "--fallback",
  "--watch-interval",
  "--completions",
])

/**
 * `coffer run cmd … -x` without `--`: the parser takes flags wherever they are, so a flag meant for the command
 * that `run` also has was taken as coffer's, silently. `coffer run ./deploy.sh -v` printed coffer's version and
 * exited 0 without deploying (`--help` likewise), and `coffer run grep -e x` ran against environment `x`. A word
 * starting with `-` after the command's name is therefore refused unless a `--` comes before it, naming both; a
 * command with no flag of its own still runs without `--` (`coffer run npm start`).
 */
const flagAfterCommand = (argv: ReadonlyArray<string>): { path: string; command: string; flag: string } | undefined => {
  const start = argv[0] === "run" ? 1 : argv[0] === "secrets" && argv[1] === "run" ? 2 : undefined
  if (start === undefined) return undefined
  const end = argv.indexOf("--")
  const words = end === -1 ? argv : argv.slice(0, end)
  for (let index = start; index < words.length; index++) {
    const word = words[index]!
    if (word.startsWith("-")) {
      if (RUN_VALUE_FLAGS.has(word)) index++
      continue
    }
    const flag = words.slice(index + 1).find((later) => later.startsWith("-") && later !== "-")
    return flag === undefined ? undefined : { path: argv.slice(0, start).join(" "), command: word, flag }
  }
  return undefined
}

export interface CliOptions {
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly cwd?: string
  /** How long one request may take before the service counts as unreachable; 30 s unless given. */
  readonly requestTimeoutMs?: number
}

/** Runs the user command `argv` (without `coffer`); resolves with the exit code, never rejects. */
export const runCli = async (argv: ReadonlyArray<string>, options: CliOptions = {}): Promise<number> => {
  // Help and version are printed with `console.log`, outside the writes that watch for a closed stdout.
  guardOutput()
  const joined = joinedShortFlag(argv)
  if (joined !== undefined) {
    process.stderr.write(
      `coffer: ${joined}: write a short flag apart from its value (\`${joined.slice(0, 2)} ${joined.slice(2)}\`); a key or value that starts with - goes after --\n`,
    )
    return EXIT_CODES.usage
  }
  const misplaced = flagAfterCommand(argv)
  if (misplaced !== undefined) {
    const { path, command, flag } = misplaced
    // The words of the parser's own refusal of a flag `run` lacks (`presenter`), after what was found.
    process.stderr.write(
      `coffer: ${flag} comes after the command ${command}, and coffer would take it as its own flag. The command to run and its flags go after \`--\`: \`coffer ${path} [flags] -- <command> [args…]\`.\n`,
    )
    return EXIT_CODES.usage
  }
  let childCode: number | undefined
  const invocation = Invocation.of({
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    setExitCode: (code) => {
      childCode = code
    },
  })
  const program = Command.runWith(coffer, { version })(argv).pipe(
    Effect.provide(platform),
    Effect.provideService(Invocation, invocation),
    options.requestTimeoutMs === undefined
      ? (effect) => effect
      : Effect.provideService(RequestTimeout, options.requestTimeoutMs),
  )
  const exit = await Effect.runPromiseExit(program)
  return Exit.isSuccess(exit) ? (childCode ?? 0) : failureCode(exit.cause)
}
