/**
 * The user side of `coffer` as one `effect/cli` command tree: `login`, `logout`, `whoami`, `init`, `secrets …`,
 * `environments …`, `schemas …` and `completions`. The server's `coffer` (hosts/node) hands every command it does
 * not own to this.
 */

import { Argument, Command, Completions } from "effect/cli"
import * as Effect from "effect/Effect"
import { init, login, logout, whoami } from "./commands/account.js"
import { audit } from "./commands/audit.js"
import { copy } from "./commands/copy.js"
import { environments } from "./commands/environments.js"
import { pull } from "./commands/pull.js"
import { importCommand, push } from "./commands/push.js"
import { run } from "./commands/run.js"
import * as Schemas from "./commands/schemas.js"
import { diff, history, list, restore } from "./commands/secretListing.js"
import { get, remove, set } from "./commands/secretValues.js"
import { substitute } from "./commands/substitute.js"
import { line } from "./output.js"

const secrets = Command.make("secrets").pipe(
  Command.withDescription(
    "An environment's secrets: run a command with them, pull, push, read and change them; the project's audit log",
  ),
  Command.withSubcommands([
    run,
    pull,
    substitute,
    push,
    importCommand,
    copy,
    set,
    get,
    list,
    remove,
    history,
    restore,
    diff,
    audit,
  ]),
  Command.withExamples([
    { command: "coffer secrets run --env production -- npm start", description: "a Procfile line" },
    { command: "coffer secrets list --env staging --json", description: "keys and versions, for a script" },
  ]),
)

const schemas = Command.make("schemas").pipe(
  Command.withDescription("Resolved configuration schemas, read with a schemas token"),
  Command.withSubcommands([Schemas.get, Schemas.list, Schemas.diff]),
  Command.withExamples([{ command: "COFFER_SCHEMAS_TOKEN=cfs_… coffer schemas get app/^2", description: "in CI" }]),
)

// `run` at the top as well, as `doppler run` and `infisical run` are: the command typed most, in every Procfile.
const userCommands = [login, logout, whoami, init, run, secrets, environments, schemas] as const

/** Everything but `completions`, which describes the whole tree. */
const base = Command.make("coffer").pipe(
  Command.withDescription("Coffer from the terminal: secrets into processes, resolved schemas into CI"),
  Command.withSubcommands(userCommands),
)

const completions = Command.make(
  "completions",
  {
    // The shells the global `--completions` flag takes, with its aliases, so that both spellings agree.
    shell: Argument.ChoiceWithValue("shell", [
      ["bash", "bash"],
      ["zsh", "zsh"],
      ["fish", "fish"],
      ["powershell", "powershell"],
      ["sh", "bash"],
      ["pwsh", "powershell"],
    ] as const).pipe(Argument.withDescription("bash, zsh, fish or powershell (sh and pwsh name the same)")),
  },
  Effect.fn(function* ({ shell }) {
    yield* line(Completions.generate("coffer", shell, Completions.fromCommand(base)))
  }),
).pipe(
  Command.withDescription("Print a shell completion script"),
  Command.withExamples([
    { command: "coffer completions bash > /etc/bash_completion.d/coffer", description: "bash" },
    { command: "coffer completions zsh > ~/.zfunc/_coffer", description: "zsh (with ~/.zfunc in fpath)" },
    { command: "coffer completions fish > ~/.config/fish/completions/coffer.fish", description: "fish" },
    { command: "coffer completions powershell >> $PROFILE", description: "PowerShell" },
  ]),
)

export const coffer = Command.make("coffer").pipe(
  Command.withDescription("Coffer from the terminal: secrets into processes, resolved schemas into CI"),
  Command.withSubcommands([...userCommands, completions]),
  Command.withExamples([
    { command: "coffer login --url https://secrets.example.com", description: "store an API key, checked first" },
    { command: "coffer secrets run --env development -- npm start", description: "run with the secrets" },
  ]),
)

/** The top-level user commands, for the server's `coffer` to know what to hand over. */
export const USER_COMMANDS: ReadonlyArray<string> = [...userCommands.map((command) => command.name), "completions"]
