/**
 * Where the settings files live and how they are read and written: `.coffer.json` in the working directory or
 * the nearest parent that has one, and the user's config file, `$XDG_CONFIG_HOME/coffer/config.json`
 * (`~/.config/coffer/config.json` by default), kept at mode 0600 because it holds tokens.
 */
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { describeIssue, refused, usage } from "./failure.js"
import { parseJsonText } from "./jsonText.js"
import { note } from "./output.js"
import { writePrivateFile } from "./privateFile.js"
import { ProjectFile, UserConfig } from "./settings.js"

export const PROJECT_FILE = ".coffer.json"

/** The user's config file for an environment. */
export const userConfigPath = (env: Readonly<Record<string, string | undefined>>): string => {
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : undefined
  return join(base ?? join(env.HOME ?? homedir(), ".config"), "coffer", "config.json")
}

/** The nearest `.coffer.json` from `cwd` upwards, if any. */
export const findProjectFile = (cwd: string): string | undefined => {
  let directory = resolve(cwd)
  for (;;) {
    const candidate = join(directory, PROJECT_FILE)
    if (existsSync(candidate)) return candidate
    const parent = dirname(directory)
    if (parent === directory) return undefined
    directory = parent
  }
}

const readJson = (file: string) =>
  Effect.try({
    try: () => readFileSync(file, "utf8"),
    catch: (error) => usage(`cannot read ${file}: ${error instanceof Error ? error.message : error}`),
  }).pipe(
    // The parser's own message would quote the text around the mistake: a piece of a token, in the user's config.
    Effect.flatMap((text) =>
      Effect.mapError(Effect.fromResult(parseJsonText(text)), (reason) => usage(`${file}: ${reason}`)),
    ),
  )

const decodeWith =
  <S extends Schema.Decoder<unknown>>(schema: S, file: string) =>
  (value: unknown) =>
    Schema.decodeUnknownEffect(schema)(value).pipe(
      Effect.mapError((error) => usage(`${file}: ${describeIssue(error)}`)),
    )

/** The files whose unknown settings were already said in this process: a command may read its settings twice. */
const unknownSaid = new Set<string>()

/**
 * Settings `.coffer.json` does not have (`"env"` for `"environment"`), said once: ignored silently, the command
 * would answer "no environment: … run coffer init" beside a file that seems to name one. Not refused, since a
 * later version's file may hold settings this one does not know.
 */
const noteUnknownSettings = (file: string, raw: object) => {
  const known = Object.keys(ProjectFile.fields)
  const unknown = Object.keys(raw).filter((key) => !known.includes(key))
  if (unknown.length === 0 || unknownSaid.has(file)) return Effect.void
  unknownSaid.add(file)
  return note(`${file}: ignored ${unknown.join(", ")}: not a setting (it takes ${known.join(", ")})`)
}

/** The project file found from `cwd`, decoded; one that holds a token is refused (it is meant to be committed). */
export const readProjectFile = (cwd: string) =>
  Effect.gen(function* () {
    const file = findProjectFile(cwd)
    if (file === undefined) return undefined
    const raw = yield* readJson(file)
    if (typeof raw === "object" && raw !== null && ("token" in raw || "schemasToken" in raw)) {
      return yield* usage(`${file} must not hold a token: remove it and use \`coffer login\` or COFFER_TOKEN`)
    }
    const decoded = yield* decodeWith(ProjectFile, file)(raw)
    if (typeof raw === "object" && raw !== null) yield* noteUnknownSettings(file, raw)
    return decoded
  })

export const readUserConfig = (env: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function* () {
    const file = userConfigPath(env)
    if (!existsSync(file)) return undefined
    return yield* Effect.flatMap(readJson(file), decodeWith(UserConfig, file))
  })

export const writeUserConfig = (env: Readonly<Record<string, string | undefined>>, config: UserConfig) =>
  writePrivateFile(userConfigPath(env), `${JSON.stringify(config, null, 2)}\n`, { createDirectory: true })

/** An fs error in words, without the call and path Node appends (the path may be a temporary file's). */
const fsReason = (error: unknown) =>
  error instanceof Error ? error.message.replace(/, \w+(?: '[^']*'(?: -> '[^']*')?)?$/, "") : String(error)

/**
 * Writes `.coffer.json`; it holds no secret and is meant to be committed, so it gets the usual mode. Without
 * `replace` an existing file is refused and never touched; with it the new file is written beside the old one and
 * renamed over it, so a failed write (a full disk, a read-only directory) leaves the old one as it was.
 */
export const writeProjectFile = (file: string, content: ProjectFile, replace: boolean) =>
  Effect.try({
    try: () => {
      const text = `${JSON.stringify(content, null, 2)}\n`
      const target = replace ? join(dirname(file), `.${randomBytes(6).toString("hex")}.coffer-tmp`) : file
      try {
        writeFileSync(target, text, { flag: "wx" })
        if (replace) renameSync(target, file)
      } catch (error) {
        // Only what this call created is removed: never a file that was already there.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") rmSync(target, { force: true })
        throw error
      }
    },
    catch: (error) =>
      (error as NodeJS.ErrnoException).code === "EEXIST"
        ? refused(`${file} already exists: pass --force to replace it`)
        : usage(`cannot write ${file}: ${fsReason(error)}`),
  })
