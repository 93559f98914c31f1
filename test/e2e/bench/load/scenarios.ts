/**
 * What the host benchmarks set up the same way: the built host started on SQLite or a fresh Postgres database,
 * signed-in callers, and the hot paths of issue 10 ready to load (a token-checked schema read, an audited secret
 * read with an API key, secret writes over 1,000 keys with a session, an environment's `.env` export).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPostgresDatabase, hasPostgres } from "@coffer/contract"
import { type Host, start } from "../../src/host.js"
import { type LoadOptions, runLoad } from "./load.js"

export const MASTER_KEY = Buffer.alloc(32, 7).toString("base64")
const ROLES = { OIDC_EDITOR_GROUP: "editors", OIDC_ADMIN_GROUP: "admins" }
export const KEYS = 1_000

export const json = async (response: Response) => {
  const text = await response.text()
  if (!response.ok) throw new Error(`${response.status} ${response.url}: ${text}`)
  return JSON.parse(text)
}

export const signIn = async (base: string, email: string, groups?: ReadonlyArray<string>) => {
  const response = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(groups === undefined ? { email } : { email, groups }),
  })
  await json(response)
  return response.headers.getSetCookie()[0]!.split(";")[0]!
}

export const send = (base: string, cookie: string) => (method: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { cookie, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(json)

export interface Engine {
  readonly name: "SQLite" | "Postgres"
  readonly env: Record<string, string>
  readonly cleanup: () => Promise<void>
}

export const sqlite = async (): Promise<Engine> => {
  const dir = mkdtempSync(join(tmpdir(), "coffer-hot-"))
  return {
    name: "SQLite",
    env: { COFFER_DATABASE_URL: `sqlite:${join(dir, "bench.db")}` },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

export const postgres = async (): Promise<Engine | undefined> => {
  if (!(await hasPostgres())) return undefined
  const database = await createPostgresDatabase("bench_hot")
  return { name: "Postgres", env: { COFFER_DATABASE_URL: database.url }, cleanup: database.drop }
}

/** `coffer serve --only <only>` on `engine`, from the workspace's build or from `bin`. */
export const serve = (
  engine: Engine,
  only: "schemas" | "secrets",
  env: Record<string, string> = {},
  bin?: string,
  nodeArgs?: ReadonlyArray<string>,
): Promise<Host> =>
  start({
    args: ["serve", "--only", only],
    ...(bin === undefined ? {} : { bin }),
    ...(nodeArgs === undefined ? {} : { nodeArgs }),
    // Development for its sign-in, with production's log format: one JSON line per request, as operators run it.
    env: { COFFER_MASTER_KEY: MASTER_KEY, COFFER_LOG_FORMAT: "json", ...ROLES, ...engine.env, ...env },
    timeoutMs: 30_000,
    // The lines are written and read as under an operator's log collector, not kept by the load generator.
    keepOutput: false,
  })

/** A schema whose output is close to the 965 bytes. */
export const CONTENT = Object.fromEntries(
  Array.from({ length: 24 }, (_, i) => [`feature_${i}`, { enabled: i % 2 === 0, rollout: i * 4, note: "stable" }]),
)

/** What a load needs to run one of the paths against a host: everything of `LoadOptions` but the timing. */
export type Target = Pick<LoadOptions, "url" | "method" | "headers" | "body" | "apart">

/** A platform with one version and a read-only token for it: the token-checked read of the schemas host. */
export const tokenReadTarget = async (base: string, platform: string): Promise<Target> => {
  const editor = send(base, await signIn(base, "ed@example.com", ["editors"]))
  const admin = send(base, await signIn(base, "root@example.com", ["admins"]))
  await editor("POST", `/api/${platform}`, { name: platform, versions: ["1.0.0"] })
  await editor("PUT", `/api/${platform}/1.0.0`, { content: CONTENT })
  const { token } = await admin("POST", "/api/_ui/v1/tokens", { name: "bench" })
  return { url: `${base}/api/${platform}/1.0.0`, headers: { authorization: `Bearer ${token}` }, apart: true }
}

/** The token read as a CI job polls it: `If-None-Match` names the tag the read answers, so each answer is a 304. */
export const pollTarget = async (read: Target): Promise<Target> => {
  const first = await fetch(read.url, { headers: read.headers })
  await first.arrayBuffer()
  const etag = first.headers.get("etag")
  if (etag === null) throw new Error(`the schema read answered ${first.status} without an ETag`)
  return { ...read, headers: { ...read.headers, "if-none-match": etag } }
}

export const SECRETS = "/api/projects/bench/environments"

/** Who owns the bench project. */
export const OWNER = "ada@example.com"

/** A project `bench` and its owner's session on a secrets host. */
export const secretsOwner = async (base: string) => {
  const cookie = await signIn(base, OWNER)
  const call = send(base, cookie)
  await call("POST", "/api/projects", { name: "Bench" })
  return { cookie, call }
}

/** One secret and a read-scoped API key: the audited read. */
export const auditedReadTarget = async (base: string, call: ReturnType<typeof send>): Promise<Target> => {
  await call("POST", `${SECRETS}/development/secrets`, { key: "DATABASE_URL", value: "postgres://x" })
  const { key } = await call("POST", "/api/api-keys", { name: "bench", projectSlug: "bench", scope: "read" })
  return { url: `${base}${SECRETS}/development/secrets/DATABASE_URL`, headers: { authorization: `Bearer ${key}` } }
}

/**
 * Writes by the owner's session, each to one of `KEYS` keys named `<prefix><n>` at random (the key is kept in
 * `context.key`); `url` is another route taking the same bodies (the Postgres reference's).
 */
export const writeTarget = (
  base: string,
  cookie: string,
  prefix = "W_",
  url = `${base}${SECRETS}/development/secrets`,
): Target => ({
  url,
  method: "POST",
  headers: { cookie, "content-type": "application/json" },
  body: (context) => {
    const name = `${prefix}${Math.floor(Math.random() * KEYS)}`
    context.key = name
    return JSON.stringify({ key: name, value: `value-${Math.random()}` })
  },
})

/** Writes `count` secrets `KEY_<i>` into `env` of the bench project, 32 at a time, through the API. */
export const fill = async (base: string, cookie: string, env: string, count: number) => {
  let next = 0
  const load = await runLoad({
    url: `${base}${SECRETS}/${env}/secrets`,
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: () => JSON.stringify({ key: `KEY_${next++}`, value: `value-${next}-${"x".repeat(40)}` }),
    amount: count,
  })
  if (load.statuses["2xx"] !== count) throw new Error(`filling ${env}: ${JSON.stringify(load.statuses)}`)
}

/** The `.env` export of `env` by the owner's session, one at a time. */
export const exportTarget = (base: string, cookie: string, env: string): Target => ({
  url: `${base}${SECRETS}/${env}/secrets/.env`,
  headers: { cookie },
})
