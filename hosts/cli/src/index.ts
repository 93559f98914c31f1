/**
 * @coffer/cli: the user side of the `coffer` command (login, init, secrets run/pull/push…, schemas get…), over
 * HTTP with `fetch`. `runCli(argv)` runs one command and answers its exit code; the server's `coffer` calls it
 * for every command in `USER_COMMANDS`.
 */
export { coffer, USER_COMMANDS } from "./command.js"
export { CofferFailure, EXIT_CODES, type FailureKind } from "./failure.js"
export { type CliOptions, runCli } from "./main.js"
export {
  type FlagSettings,
  normalizeUrl,
  ProjectFile,
  resolveSettings,
  type Settings,
  type Sources,
  UserConfig,
} from "./settings.js"
export { PROJECT_FILE, userConfigPath } from "./settingsFiles.js"
export { suggestCommands } from "./suggest.js"
