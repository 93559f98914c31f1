/**
 * Which server, token, project and environment a command uses, from four sources, highest first: flags, the
 * environment (`COFFER_URL`, `COFFER_TOKEN`, `COFFER_PROJECT`, `COFFER_ENVIRONMENT`, `COFFER_SCHEMAS_URL`,
 * `COFFER_SCHEMAS_TOKEN`), the project file `.coffer.json` (never a secret), and the user's config file (written
 * by `coffer login`, mode 0600). Pure: the files are read elsewhere and handed in.
 *
 * A stored token belongs to the server it was checked against: it is sent only to that URL, so pointing a
 * command at another server (a flag, `COFFER_URL`) never hands it a key meant for the first. A token from the
 * environment is sent to a URL the person chose (a flag, the environment, their config file), never to one that
 * only a `.coffer.json` names: that file comes with whatever repository, or parent folder, the command runs in, and
 * one naming another server would otherwise collect the key of everyone who runs a command there.
 */
import * as Schema from "effect/Schema"

/** `.coffer.json`: what a repository may share. A token here is refused, never read. */
export const ProjectFile = Schema.Struct({
  project: Schema.optional(Schema.String),
  environment: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  schemasUrl: Schema.optional(Schema.String),
})
export type ProjectFile = typeof ProjectFile.Type

/** The user's config file: default URLs and the tokens stored by `coffer login`, by server URL. */
export const UserConfig = Schema.Struct({
  url: Schema.optional(Schema.String),
  schemasUrl: Schema.optional(Schema.String),
  tokens: Schema.optional(Schema.Record(Schema.String, Schema.String)),
})
export type UserConfig = typeof UserConfig.Type

/** What flags can set; tokens are not among them (argv is visible to every user of the machine). */
export interface FlagSettings {
  readonly url?: string | undefined
  readonly schemasUrl?: string | undefined
  readonly project?: string | undefined
  readonly environment?: string | undefined
}

export interface Sources {
  readonly flags: FlagSettings
  readonly env: Readonly<Record<string, string | undefined>>
  readonly projectFile?: ProjectFile | undefined
  readonly userConfig?: UserConfig | undefined
}

export interface Settings {
  readonly url: string | undefined
  readonly token: string | undefined
  /** Why the environment's `COFFER_TOKEN` is not `token`: the URL is only a `.coffer.json`'s. */
  readonly tokenWithheld?: string | undefined
  readonly project: string | undefined
  readonly environment: string | undefined
  readonly schemasUrl: string | undefined
  readonly schemasToken: string | undefined
  /** Why the environment's `COFFER_SCHEMAS_TOKEN` is not `schemasToken`: the URL is only a `.coffer.json`'s. */
  readonly schemasTokenWithheld?: string | undefined
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.length === 0 ? undefined : value

const first = (...values: ReadonlyArray<string | undefined>): string | undefined =>
  values.map(nonEmpty).find((value) => value !== undefined)

/** A base URL in one spelling, so that a stored token is found whichever way the URL was typed. */
export const normalizeUrl = (url: string): string =>
  url
    .trim()
    .replace(/\/+$/, "")
    // Scheme and host are the same in any case (`HTTP://Host` is `http://host`): one server, one stored key.
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, (origin) => origin.toLowerCase())

/**
 * The key stored for `url` (normalized), under its own form or one an earlier version stored it under (before
 * scheme and host were lower-cased).
 */
const storedUnder = (tokens: Readonly<Record<string, string>> | undefined, url: string): string | undefined =>
  tokens?.[url] ?? Object.entries(tokens ?? {}).find(([stored]) => normalizeUrl(stored) === url)?.[1]

/** `url` with any user name and password taken out: the form in which a URL may appear in a message. */
export const withoutCredentials = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#@]*@/i, "$1")

/** A host and port with nothing before them (no user name, no scheme), and perhaps a path. */
const HOST_AND_PORT = /^[A-Za-z0-9.-]+:\d+(?:\/[^?#]*)?$/

/**
 * Why `url` cannot be a service's base URL, or `undefined` when it can. One with a user name or password is
 * refused rather than used: the API key is the credential, and the URL is printed in messages.
 */
export const urlProblem = (url: string): string | undefined => {
  // Nor its query or fragment, which may hold a key (`?token=…`) that the message would put in a CI log.
  const shown = withoutCredentials(url).replace(/([?#]).*$/s, "$1…")
  // `localhost:8788`, as a server prints its address: read as a URL whose scheme is `localhost:`, it would be said
  // to be no http URL, which is no help to someone who wrote a host.
  if (HOST_AND_PORT.test(url)) return `${shown} has no scheme: give http://${shown} (or https://${shown})`
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `${shown} is not a URL: expected http://HOST[:PORT] or https://…`
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `${shown} is not an http or https URL`
  if (parsed.username !== "" || parsed.password !== "") {
    return `${shown} holds a user name or password: leave them out (the API key is the credential)`
  }
  // Each request's path is added to the base URL: a query or fragment would swallow it, and an `/api` of the
  // URL (as another tool's API URL is written) would double it into an unknown route, answered "Not found".
  if (parsed.search !== "" || parsed.hash !== "" || /\/api\/*$/i.test(parsed.pathname)) {
    const base = `${parsed.origin}${parsed.pathname.replace(/\/api\/*$/i, "").replace(/\/+$/, "")}`
    return `${shown} is not a base URL: give ${base} (each command adds /api/… itself)`
  }
  return undefined
}

const storedToken = (config: UserConfig | undefined, url: string | undefined): string | undefined =>
  url === undefined ? undefined : storedUnder(config?.tokens, normalizeUrl(url))

/** A URL the person chose or logged in to: their config file's default, or one it holds a token for. */
const known = (config: UserConfig | undefined, url: string) =>
  [config?.url, config?.schemasUrl].some((mine) => mine !== undefined && normalizeUrl(mine) === url) ||
  storedUnder(config?.tokens, url) !== undefined

/** Where each service's URL and token come from: the same key in flags, `.coffer.json` and the config file. */
const SOURCES = {
  secrets: { key: "url", urlVariable: "COFFER_URL", tokenVariable: "COFFER_TOKEN" },
  schemas: { key: "schemasUrl", urlVariable: "COFFER_SCHEMAS_URL", tokenVariable: "COFFER_SCHEMAS_TOKEN" },
} as const

/**
 * One service's URL and token. The environment's token goes with a URL from a flag or the environment, or with a
 * `.coffer.json`'s that the person also knows; `withheld` says why it did not.
 */
const service = (which: keyof typeof SOURCES, { flags, env, projectFile, userConfig }: Sources) => {
  const { key, urlVariable, tokenVariable } = SOURCES[which]
  const chosen = first(flags[key], env[urlVariable])
  const shared = first(projectFile?.[key])
  const raw = first(chosen, shared, userConfig?.[key])
  const url = raw === undefined ? undefined : normalizeUrl(raw)
  const stored = storedToken(userConfig, raw)
  // Blanks and line breaks around it are no part of a key: a CI secret saved from a file often ends in a line
  // break, which `coffer login` drops from a pasted key too; refusing it as a control character helped nobody.
  const envToken = first(env[tokenVariable]?.trim())
  if (envToken !== undefined && chosen === undefined && shared !== undefined && !known(userConfig, url!)) {
    const where = withoutCredentials(url!)
    return {
      url,
      token: stored,
      withheld:
        `${tokenVariable} is not sent to ${where}, which only a .coffer.json names: ` +
        `set ${urlVariable}=${where} (or pass the URL's flag) to send it there`,
    }
  }
  return { url, token: first(envToken, stored), withheld: undefined }
}

/** Settings from the four sources, highest first. */
export const resolveSettings = (sources: Sources): Settings => {
  const { flags, env, projectFile } = sources
  const secrets = service("secrets", sources)
  const schemas = service("schemas", sources)
  return {
    url: secrets.url,
    token: secrets.token,
    ...(secrets.withheld === undefined ? {} : { tokenWithheld: secrets.withheld }),
    // No project or environment name holds a blank: one around a variable's value is a line break a CI secret
    // kept, which was sent as part of the name and answered "not found", said on two lines.
    project: first(flags.project, env.COFFER_PROJECT?.trim(), projectFile?.project),
    environment: first(flags.environment, env.COFFER_ENVIRONMENT?.trim(), projectFile?.environment),
    schemasUrl: schemas.url,
    schemasToken: schemas.token,
    ...(schemas.withheld === undefined ? {} : { schemasTokenWithheld: schemas.withheld }),
  }
}
