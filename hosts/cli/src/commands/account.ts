/**
 * `coffer login`, `logout`, `whoami` and `init`: who the command acts as, and which project and environment a
 * directory uses.
 *
 * `login` reads a key (hidden on a terminal, or from stdin), checks it against its service, and stores it in the
 * user's config file (mode 0600) under that service's URL, which becomes the default: a secrets API key (`cfk_…`, checked with
 * `GET /api/auth/me`) or a schemas token (`cfs_…`, checked with `GET /api/schemas`). `logout` forgets the stored
 * keys (it does not revoke them: that is done where they were made). `init` writes `.coffer.json`, which holds
 * no secret and is meant to be committed.
 */
import { hostname } from "node:os"
import { join } from "node:path"
import { CLI_LOGIN_NAME_MAX_LENGTH, KeyScope, mayHoldScope, parseCliLoginName, Role } from "@coffer/secrets"
import { Command, Flag } from "effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { openBrowser } from "../browser.js"
import { awaitCliLogin, startCliLogin } from "../cliLogin.js"
import { notFound, usage } from "../failure.js"
import { Invocation, loadSettings, secretsEndpoint } from "../invocation.js"
import { json, line, note } from "../output.js"
import { removeFile } from "../privateFile.js"
import { platforms } from "../schemasApi.js"
import { environments, type KeyIdentity, type Me, me } from "../secretsApi.js"
import { normalizeUrl, type UserConfig } from "../settings.js"
import { PROJECT_FILE, readUserConfig, userConfigPath, writeProjectFile, writeUserConfig } from "../settingsFiles.js"
import { readSecretInput } from "../stdin.js"
import { requireEnvironment, resolveTarget } from "../target.js"
import { env, json as jsonFlag, project, schemasUrl, settingsOf, url } from "./flags.js"

const isKeyScope = Schema.is(KeyScope)
const isRole = Schema.is(Role)

/**
 * The key's scope, and what it acts as when its holder's current role is below it: a key never exceeds its holder
 * (`mayHoldScope`, the service's own rule), so a write key of a member moved down to read can only read, and its
 * writes answer 403. Said from the holder's role the service answers, never guessed when it answers none.
 */
export const scopeText = (key: KeyIdentity) => {
  const { scope, holderRole } = key
  if (!isKeyScope(scope) || !isRole(holderRole) || mayHoldScope(holderRole, scope)) return scope
  return `${scope} (acts as read: its holder is now a ${holderRole} member)`
}

const describeKey = (identity: Me) => {
  const key = identity.apiKey
  if (key === undefined) return `${identity.user.email}`
  const expiry = key.expiresAt === null ? "never expires" : `expires ${key.expiresAt}`
  return `${identity.user.email} in project ${key.project.slug}, ${scopeText(key)} scope, ${expiry}`
}

/** Where each service's URL is given, for what `login` says. */
const URL_SETTING = {
  url: { flag: "--url", variable: "COFFER_URL", tokenVariable: "COFFER_TOKEN" },
  schemasUrl: { flag: "--schemas-url", variable: "COFFER_SCHEMAS_URL", tokenVariable: "COFFER_SCHEMAS_TOKEN" },
} as const

/**
 * Stores `token` under `serviceUrl` and makes that URL the default, as `doppler login` and `infisical login` set
 * the one in use: a person who just logged in to a server means to use it. Answers the file and the default it
 * replaced, if another (its key stays stored, under its own URL).
 */
const storeToken = (serviceUrl: string, token: string, field: keyof typeof URL_SETTING) =>
  Effect.gen(function* () {
    const { env: environment } = yield* Invocation
    const config: UserConfig = (yield* readUserConfig(environment)) ?? {}
    // An entry an earlier version stored under another case of the same URL is replaced, not kept beside it.
    const others = Object.entries(config.tokens ?? {}).filter(([stored]) => normalizeUrl(stored) !== serviceUrl)
    yield* writeUserConfig(environment, {
      ...config,
      [field]: serviceUrl,
      tokens: { ...Object.fromEntries(others), [serviceUrl]: token },
    })
    const previous = config[field]
    return { file: userConfigPath(environment), replaced: previous === serviceUrl ? undefined : previous }
  })

/**
 * Which server and key later commands will use, said plainly: the default may have just moved, and the environment
 * or `.coffer.json` come before it, so a login may change nothing here. Nor does the stored key, while a token
 * variable holding another one is set: commands go on acting as that one (`logout` says the same).
 */
const serverInUse = (
  serviceUrl: string,
  replaced: string | undefined,
  field: keyof typeof URL_SETTING,
  token: string,
) =>
  Effect.gen(function* () {
    const { flag, variable, tokenVariable } = URL_SETTING[field]
    const used = (yield* loadSettings({}))[field]
    if (used !== undefined && used !== serviceUrl) {
      return `; commands here still use ${used}, named by ${variable} or .coffer.json, which come before the default`
    }
    const held = ((yield* Invocation).env[tokenVariable] ?? "").trim()
    const shadowed =
      held === "" || held === token
        ? ""
        : `; ${tokenVariable} is set, and commands use its key instead: unset it to use this one`
    if (replaced === undefined) return shadowed
    return `; it is now the default server, instead of ${replaced} (its key stays stored: pass ${flag} ${replaced} to use it)${shadowed}`
  })

/**
 * What a key from `login --web` is called unless `--name` says: the machine it serves, as Doppler names its CLI
 * tokens, so that the API keys page tells one laptop's key from another's and a lost machine's key is found.
 */
const machineName = () => `coffer on ${hostname()}`.slice(0, CLI_LOGIN_NAME_MAX_LENGTH).trim()

/**
 * `login --web`: the browser approves, and the key it grants is stored as a pasted key is. The URL and the code go
 * to stderr (stdout stays for results); the browser opens only for a person at a terminal who did not say no.
 */
const loginInBrowser = (serviceUrl: string, name: string, browser: boolean) =>
  Effect.gen(function* () {
    const started = yield* startCliLogin(serviceUrl, name)
    yield* note(`open ${started.verificationUrl} and check that it shows the code ${started.userCode}`)
    if (browser && process.stdout.isTTY === true) yield* openBrowser(started.verificationUrl)
    yield* note(`waiting for approval (expires in ${Math.round(started.expiresIn / 60)} minutes; Ctrl-C to stop)`)
    const issued = yield* awaitCliLogin(serviceUrl, started).pipe(
      Effect.onInterrupt(() => note("stopped waiting; the login was not completed")),
    )
    const { file, replaced } = yield* storeToken(serviceUrl, issued.key, "url")
    const inUse = yield* serverInUse(serviceUrl, replaced, "url", issued.key)
    const expiry = issued.expiresAt === null ? "never expires" : `expires ${issued.expiresAt}`
    return yield* note(
      `logged in to ${serviceUrl}: project ${issued.projectSlug}, ${issued.scope} scope, ${expiry}; key stored in ${file}${inUse}`,
    )
  })

/**
 * When the URL given was the other service's flag (a schemas token with `--url`), says so: the key was read and is
 * fine, only where it goes was named with the wrong flag.
 */
const crossedFlag = (given: Option.Option<string>, kind: string, flag: string, service: string) =>
  Option.isSome(given) ? `; this is a ${kind}, and ${flag} is for the ${service} service` : ""

export const login = Command.make(
  "login",
  {
    url,
    schemasUrl,
    web: Flag.Boolean("web").pipe(
      Flag.withDescription("approve in the browser instead of pasting a key (secrets service)"),
      Flag.withDefault(false),
    ),
    name: Flag.String("name").pipe(
      Flag.withDescription(
        "with --web: this machine's name, shown to the approver and given to the key (default: coffer on <host name>)",
      ),
      Flag.optional,
    ),
    noBrowser: Flag.Boolean("no-browser").pipe(
      Flag.withDescription("with --web: print the URL only, do not open a browser"),
      Flag.withDefault(false),
    ),
  },
  Effect.fn(function* (flags) {
    const settings = yield* loadSettings(settingsOf(flags))
    if (flags.web) {
      // By the service's own rule, before any request: the service's refusal of it would count against this
      // client's failed sign-ins.
      const name = Option.isSome(flags.name)
        ? yield* Effect.mapError(Effect.fromResult(parseCliLoginName(flags.name.value, "--name")), usage)
        : machineName()
      if (settings.url === undefined) return yield* usage("no secrets service URL: pass --url or set COFFER_URL")
      return yield* loginInBrowser(settings.url, name, !flags.noBrowser)
    }
    const token = (yield* readSecretInput("API key: ")).trim()
    // Nothing at all is a forgotten pipe or an Enter pressed too soon, not a key of the wrong kind.
    if (token.length === 0) return yield* usage("no key given: paste it at the prompt, or pipe it in (`< key.txt`)")
    if (token.startsWith("cfk_")) {
      if (settings.url === undefined) {
        return yield* usage(
          `no secrets service URL: pass --url or set COFFER_URL${crossedFlag(flags.schemasUrl, "secrets API key (cfk_…)", "--schemas-url", "schemas")}`,
        )
      }
      const identity = yield* me({ url: settings.url, token, service: "secrets" })
      const { file, replaced } = yield* storeToken(settings.url, token, "url")
      const inUse = yield* serverInUse(settings.url, replaced, "url", token)
      return yield* note(`logged in to ${settings.url} as ${describeKey(identity)}; key stored in ${file}${inUse}`)
    }
    if (token.startsWith("cfs_")) {
      if (settings.schemasUrl === undefined) {
        return yield* usage(
          `no schemas service URL: pass --schemas-url or set COFFER_SCHEMAS_URL${crossedFlag(flags.url, "schemas token (cfs_…)", "--url", "secrets")}`,
        )
      }
      const readable = yield* platforms({ url: settings.schemasUrl, token, service: "schemas" })
      const { file, replaced } = yield* storeToken(settings.schemasUrl, token, "schemasUrl")
      const inUse = yield* serverInUse(settings.schemasUrl, replaced, "schemasUrl", token)
      return yield* note(
        `logged in to ${settings.schemasUrl}: the token reads ${readable.length} platform(s); stored in ${file}${inUse}`,
      )
    }
    return yield* usage("not a Coffer key: expected a secrets API key (cfk_…) or a schemas token (cfs_…)")
  }),
).pipe(
  Command.withDescription(
    "Check an API key or schemas token against its service and store it (hidden input or stdin), or with --web " +
      "approve this machine in the browser",
  ),
  Command.withExamples([
    { command: "coffer login --web --url https://secrets.example.com", description: "approve in the browser" },
    { command: "coffer login --url https://secrets.example.com", description: "type the key; nothing is echoed" },
    { command: "coffer login --schemas-url https://schemas.example.com < token.txt", description: "from stdin" },
  ]),
)

/** A token variable still set keeps every later command signed in: logging out says so rather than seeming done. */
const stillSetNote = (environment: Readonly<Record<string, string | undefined>>) => {
  const set = ["COFFER_TOKEN", "COFFER_SCHEMAS_TOKEN"].filter((name) => (environment[name] ?? "") !== "")
  return set.length === 0 ? "" : `; ${set.join(" and ")} ${set.length === 1 ? "is" : "are"} still set, and used`
}

export const logout = Command.make(
  "logout",
  {
    url,
    schemasUrl,
    all: Flag.Boolean("all").pipe(Flag.withDescription("forget every stored key"), Flag.withDefault(false)),
  },
  Effect.fn(function* (flags) {
    const settings = yield* loadSettings(settingsOf(flags))
    const { env: environment } = yield* Invocation
    const config = yield* readUserConfig(environment)
    if (config === undefined) return yield* note(`no stored keys${stillSetNote(environment)}`)
    const forget = new Set(
      (flags.all
        ? Object.keys(config.tokens ?? {})
        : [settings.url, settings.schemasUrl].filter((item): item is string => item !== undefined)
      ).map(normalizeUrl),
    )
    const forgets = (server: string) => forget.has(normalizeUrl(server))
    const kept = Object.fromEntries(Object.entries(config.tokens ?? {}).filter(([server]) => !forgets(server)))
    const forgotten = Object.keys(config.tokens ?? {}).filter(forgets)
    const still = stillSetNote(environment)
    if (forgotten.length === 0) {
      const asked = [...forget].join(", ")
      return yield* note(`${flags.all || asked === "" ? "no stored keys" : `no stored key for ${asked}`}${still}`)
    }
    if (Object.keys(kept).length === 0 && config.url === undefined && config.schemasUrl === undefined) {
      yield* removeFile(userConfigPath(environment))
    } else yield* writeUserConfig(environment, { ...config, tokens: kept })
    const [keys, them] = forgotten.length === 1 ? ["key", "it"] : ["keys", "them"]
    yield* note(
      `forgot the stored ${keys} for ${forgotten.join(", ")} (revoke ${them} in the web app if leaked)${still}`,
    )
  }),
).pipe(
  Command.withDescription("Forget stored keys (they stay valid until revoked)"),
  Command.withExamples([{ command: "coffer logout --all", description: "forget every stored key" }]),
)

export const whoami = Command.make(
  "whoami",
  { url, json: jsonFlag },
  Effect.fn(function* (flags) {
    const settings = yield* loadSettings(settingsOf(flags))
    const endpoint = yield* secretsEndpoint(settings)
    const identity = yield* me(endpoint)
    if (flags.json) return yield* json({ url: endpoint.url, ...identity })
    const key = identity.apiKey
    const rows = [
      `person:  ${identity.user.email} (${identity.user.id})`,
      ...(key === undefined
        ? []
        : [
            `project: ${key.project.name} (${key.project.slug})`,
            `scope:   ${scopeText(key)}`,
            `expires: ${key.expiresAt ?? "never"}`,
          ]),
      `service: ${endpoint.url}`,
    ]
    yield* line(rows.join("\n"))
  }),
).pipe(
  Command.withDescription("Show who the API key acts as: person, project, scope and expiry"),
  Command.withExamples([{ command: "coffer whoami --json", description: "for a script" }]),
)

export const init = Command.make(
  "init",
  {
    url,
    schemasUrl,
    project,
    env,
    force: Flag.Boolean("force").pipe(
      Flag.withDescription("replace an existing .coffer.json"),
      Flag.withDefault(false),
    ),
  },
  Effect.fn(function* (flags) {
    const { cwd } = yield* Invocation
    const file = join(cwd, PROJECT_FILE)
    const settings = yield* loadSettings(settingsOf(flags))
    const environment = yield* requireEnvironment(settings, true)
    // With a key at hand, the project is checked (or found) and the environment must exist in it.
    const where = settings.token === undefined ? undefined : yield* resolveTarget(settings, true)
    if (where !== undefined) {
      const names = (yield* environments(where.endpoint, where.project)).map((item) => item.name)
      if (!names.includes(environment)) {
        return yield* notFound(
          `project ${where.project} has no environment ${environment} (it has ${names.join(", ")})`,
        )
      }
    }
    yield* writeProjectFile(
      file,
      { project: where?.project ?? settings.project, environment, url: settings.url, schemasUrl: settings.schemasUrl },
      flags.force,
    )
    // Without a key nothing was checked: a mistyped project, environment or URL is written as typed, so say so.
    const unchecked =
      where === undefined
        ? ` (not checked against the service: no API key${settings.url === undefined ? "" : ` for ${settings.url}`})`
        : ""
    yield* note(`wrote ${file}${unchecked}; commit it, it holds no secret`)
  }),
).pipe(
  Command.withDescription("Write .coffer.json: the project, environment and URLs this directory uses (no secret)"),
  Command.withExamples([
    { command: "coffer init --url https://secrets.example.com --env development", description: "project from the key" },
  ]),
)
