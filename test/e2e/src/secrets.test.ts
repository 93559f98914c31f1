/**
 * The Secrets service of seed 001 against the built `coffer serve --only secrets`, as clients and operators use
 * it, on SQLite and (when reachable) on Postgres: every endpoint with its success and error statuses, bad input,
 * concurrent writers, the raw database holding no plaintext, a ciphertext moved to another row failing cleanly,
 * the `.env` export read back by bash and by the `dotenv` parser, and `coffer keys rotate` while the service runs.
 *
 * The database is changed behind the service's back (a moved ciphertext, an expired key) with the host's own
 * driver: `pg` for Postgres, and for SQLite the `better-sqlite3` the Node host depends on, loaded from there.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { createRequire } from "node:module"
import { join, resolve } from "node:path"
import { createPostgresDatabase, hasPostgres, type PostgresDatabase, redisUrl } from "@coffer/contract"
import { parse as parseDotenv } from "dotenv"
import { Redis } from "ioredis"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { freshDirectory, type Host, run, start } from "./host.js"

const running: Array<Host> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((host) => host.stop("SIGKILL")))
})

const masterKey = () => randomBytes(32).toString("base64")

/** Statements against the service's database, from outside the service. */
interface RawDatabase {
  readonly env: Readonly<Record<string, string>>
  readonly all: (sql: string, params?: ReadonlyArray<unknown>) => Promise<Array<Record<string, unknown>>>
  readonly exec: (sql: string, params?: ReadonlyArray<unknown>) => Promise<void>
  /** Every byte the database keeps, as text, for a search. */
  readonly dump: () => Promise<string>
}

const root = resolve(import.meta.dirname, "../../..")
const hostRequire = createRequire(join(root, "hosts/node/package.json"))

const sqliteDatabase = (): RawDatabase => {
  const directory = freshDirectory()
  const file = join(directory, "coffer.db")
  // biome-ignore lint/suspicious/noExplicitAny: the driver is loaded by path, without its types.
  const open = (): any => new (hostRequire("better-sqlite3"))(file)
  return {
    env: { COFFER_DATABASE_URL: `sqlite:${file}` },
    all: async (sql, params = []) => {
      const db = open()
      try {
        return db.prepare(sql.replace(/\$\d+/g, "?")).all(...params)
      } finally {
        db.close()
      }
    },
    exec: async (sql, params = []) => {
      const db = open()
      try {
        db.pragma("busy_timeout = 5000")
        db.prepare(sql.replace(/\$\d+/g, "?")).run(...params)
      } finally {
        db.close()
      }
    },
    // The file and its write-ahead log, where recent writes live until a checkpoint.
    dump: async () =>
      readdirSync(directory)
        .filter((name) => name.startsWith("coffer.db"))
        .map((name) => readFileSync(join(directory, name)).toString("latin1"))
        .join("\n"),
  }
}

const postgresDatabases: Array<PostgresDatabase> = []
const postgresDatabase = async (): Promise<RawDatabase> => {
  const database = await createPostgresDatabase("e2e_secrets")
  postgresDatabases.push(database)
  return {
    env: { COFFER_DATABASE_URL: database.url },
    all: database.query,
    exec: async (sql, params) => {
      await database.query(sql, params)
    },
    dump: async () => {
      const tables = await database.query(`select tablename from pg_tables where schemaname = 'public'`)
      const parts = await Promise.all(
        tables.map(async ({ tablename }) => JSON.stringify(await database.query(`select * from "${tablename}"`))),
      )
      return parts.join("\n")
    },
  }
}

afterAll(async () => {
  await Promise.all(postgresDatabases.splice(0).map((database) => database.drop()))
})

interface Reply {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions that read them.
  readonly body: any
  readonly text: string
  readonly headers: Headers
}

type As = { readonly cookie: string } | { readonly key: string } | undefined

const client = (base: string) => {
  const call = async (
    method: string,
    path: string,
    options: { as?: As; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Reply> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.as !== undefined && "cookie" in options.as) headers.cookie = options.as.cookie
    if (options.as !== undefined && "key" in options.as) headers.authorization = `Bearer ${options.as.key}`
    let body: string | undefined
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    const response = await fetch(`${base}${path}`, { method, headers, body })
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, body: parsed, text, headers: response.headers }
  }
  const signIn = async (email: string) => {
    const response = await call("POST", "/api/auth/dev-login", { body: { email } })
    expect(response.status).toBe(200)
    const cookie = response.headers.getSetCookie()[0]!.split(";")[0]!
    return { cookie, userId: response.body.user.id as string, as: { cookie } as const }
  }
  /** A request whose path reaches the server byte for byte, which `fetch` would normalise first. */
  const raw = (method: string, path: string, as: { cookie: string }) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(base)
      const req = httpRequest(
        { host: url.hostname, port: url.port, method, path, headers: { cookie: as.cookie } },
        (response) => {
          let body = ""
          response.on("data", (chunk) => {
            body += chunk
          })
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
        },
      )
      req.on("error", reject)
      req.end()
    })
  /**
   * A body larger than the server accepts: the server answers 413 as soon as it knows and may close the
   * connection before the client has sent everything, which `fetch` reports as a failure; the answer is what counts.
   */
  const oversized = (path: string, as: { cookie: string }, bytes: number) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(base)
      let answered = false
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: "POST",
          path,
          headers: { cookie: as.cookie, "content-type": "application/json", "content-length": String(bytes) },
        },
        (response) => {
          answered = true
          let body = ""
          response.on("data", (chunk) => {
            body += chunk
          })
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
        },
      )
      // Once the answer is in, a write cut short by the server's close is expected.
      req.on("error", (error) => {
        if (!answered) reject(error)
      })
      req.end(`{"key":"K","value":"${"v".repeat(bytes - 22)}"}`)
    })
  /**
   * A JSON body sent in `pieces`, a moment apart: chunked (no declared length), or with `length` declared; with
   * `cut`, the connection is closed after the pieces, before the declared length is reached.
   */
  const streamed = (
    path: string,
    as: { cookie: string },
    pieces: ReadonlyArray<string>,
    options: { length?: number; cut?: boolean } = {},
  ) =>
    new Promise<{ status: number; body: string } | "cut">((resolve, reject) => {
      const url = new URL(base)
      const headers: Record<string, string> = { cookie: as.cookie, "content-type": "application/json" }
      if (options.length !== undefined) headers["content-length"] = String(options.length)
      const req = httpRequest({ host: url.hostname, port: url.port, method: "POST", path, headers }, (response) => {
        let body = ""
        response.on("data", (chunk) => {
          body += chunk
        })
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
      })
      req.on("error", (error) => (options.cut ? resolve("cut") : reject(error)))
      const send = async () => {
        for (const piece of pieces) {
          req.write(piece)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        if (options.cut) req.destroy()
        else req.end()
      }
      void send()
    })
  return { call, signIn, raw, oversized, streamed }
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const backends: ReadonlyArray<readonly [string, () => Promise<RawDatabase>]> = [
  ["SQLite", async () => sqliteDatabase()],
  ...((await hasPostgres()) ? [["Postgres", postgresDatabase] as const] : []),
]

describe.each(backends)("secrets service on %s", (backend, makeDatabase) => {
  const serve = async (database: RawDatabase, env: Record<string, string> = {}) => {
    const host = await start({
      args: ["serve", "--only", "secrets"],
      env: { COFFER_MASTER_KEY: masterKey(), ...database.env, ...env },
    })
    running.push(host)
    return { host, ...client(host.secrets!) }
  }

  it("projects, environments, secrets, history and exports, with every status", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    const bob = await signIn("bob@example.com")

    expect((await call("GET", "/api/projects")).status).toBe(401)
    const created = await call("POST", "/api/projects", { as: ada.as, body: { name: "Web Shop" } })
    expect(created.status).toBe(201)
    expect(created.body.project).toMatchObject({
      name: "Web Shop",
      slug: "web-shop",
      ownerId: ada.userId,
      role: "owner",
    })
    expect((await call("POST", "/api/projects", { as: bob.as, body: { name: "web shop" } })).status).toBe(409)
    expect((await call("POST", "/api/projects", { as: ada.as, body: { name: "!!!" } })).status).toBe(400)
    expect((await call("GET", "/api/projects", { as: ada.as })).body.projects).toEqual([created.body.project])
    expect((await call("GET", "/api/projects", { as: bob.as })).body.projects).toEqual([])
    const got = await call("GET", "/api/projects/web-shop", { as: ada.as })
    expect(got.body.environments.map((e: { name: string }) => e.name)).toEqual(["development", "staging", "production"])
    expect((await call("GET", "/api/projects/web-shop", { as: bob.as })).status).toBe(404)

    const P = "/api/projects/web-shop"
    expect((await call("POST", `${P}/environments`, { as: ada.as, body: { name: "qa" } })).status).toBe(201)
    expect((await call("POST", `${P}/environments`, { as: ada.as, body: { name: "qa" } })).status).toBe(409)
    expect((await call("POST", `${P}/environments`, { as: ada.as, body: { name: "q a" } })).status).toBe(400)
    expect((await call("GET", `${P}/environments`, { as: ada.as })).body.environments).toHaveLength(4)

    const S = `${P}/environments/qa/secrets`
    expect((await call("POST", S, { as: ada.as, body: { key: "DB_URL", value: "postgres://x" } })).body).toEqual({
      ok: true,
      action: "created",
      version: 1,
    })
    const updated = await call("POST", S, { as: ada.as, body: { key: "DB_URL", value: "postgres://y" } })
    expect(updated).toMatchObject({ status: 200, body: { ok: true, action: "updated", version: 2 } })
    expect((await call("POST", S, { as: ada.as, body: { key: "BIG", value: "x".repeat(65537) } })).status).toBe(413)
    expect((await call("POST", S, { as: ada.as, body: { key: "a/b", value: "v" } })).status).toBe(400)
    const list = await call("GET", S, { as: ada.as })
    expect(list.body.secrets).toEqual([
      {
        id: expect.any(String),
        key: "DB_URL",
        version: 2,
        empty: false,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    ])
    expect((await call("GET", `${S}/DB_URL`, { as: ada.as })).body.secret).toMatchObject({
      value: "postgres://y",
      version: 2,
    })
    expect((await call("GET", `${S}/NOPE`, { as: ada.as })).status).toBe(404)
    const versions = await call("GET", `${S}/DB_URL/versions`, { as: ada.as })
    expect(versions.body.versions.map((v: { version: number; userEmail: string }) => [v.version, v.userEmail])).toEqual(
      [
        [2, "ada@example.com"],
        [1, "ada@example.com"],
      ],
    )
    expect((await call("GET", `${S}/DB_URL/versions/1`, { as: ada.as })).body.secret).toMatchObject({
      value: "postgres://x",
    })
    expect((await call("GET", `${S}/DB_URL/versions/9`, { as: ada.as })).status).toBe(404)
    expect((await call("GET", `${S}/DB_URL/versions/x`, { as: ada.as })).status).toBe(400)
    expect((await call("POST", `${S}/DB_URL/versions/1/restore`, { as: ada.as })).body).toEqual({
      ok: true,
      action: "restored",
      version: 3,
    })
    const history = await call("GET", `${S}/DB_URL/versions`, { as: ada.as })
    expect(history.body.versions.map((v: { restoredFrom: number | null }) => v.restoredFrom)).toEqual([1, null, null])

    const dotenv = await call("GET", `${S}/.env`, { as: ada.as })
    expect(dotenv.headers.get("content-type")).toMatch(/^text\/plain/)
    expect(dotenv.headers.get("content-disposition")).toBe('attachment; filename="qa.env"')
    expect(dotenv.text).toBe("DB_URL=postgres://x\n")
    expect((await call("GET", `${S}/json`, { as: ada.as })).body).toEqual({ DB_URL: "postgres://x" })

    expect((await call("DELETE", `${S}/DB_URL`, { as: ada.as })).body).toEqual({ ok: true })
    expect((await call("DELETE", `${S}/DB_URL`, { as: ada.as })).status).toBe(404)
    expect((await call("DELETE", `${P}/environments/qa`, { as: ada.as })).body).toEqual({ ok: true })
    expect((await call("DELETE", `${P}/environments/qa`, { as: ada.as })).status).toBe(404)

    const log = (await call("GET", `${P}/audit-log?limit=500`, { as: ada.as })).body.auditLog
    expect(log.map((e: { action: string; targetKey: string }) => `${e.action} ${e.targetKey}`)).toEqual([
      "environment.deleted qa",
      "secret.deleted DB_URL",
      "secrets.exported json",
      "secrets.exported dotenv",
      "secret.restored DB_URL@1",
      "secret.read DB_URL@1",
      "secret.read DB_URL",
      "secret.updated DB_URL",
      "secret.created DB_URL",
      "environment.created qa",
      "project.created web-shop",
    ])
    expect(log[0]).toMatchObject({
      userId: ada.userId,
      userEmail: "ada@example.com",
      createdAt: expect.stringMatching(ISO),
    })
    expect(log[0].ipAddress).toMatch(/127\.0\.0\.1|::1/)
    expect((await call("GET", `${P}/audit-log?limit=0`, { as: ada.as })).status).toBe(400)
    expect((await call("GET", `${P}/audit-log?limit=501`, { as: ada.as })).status).toBe(400)
    expect((await call("GET", `${P}/audit-log?offset=-1`, { as: ada.as })).status).toBe(400)
    expect((await call("GET", `${P}/audit-log?limit=2&offset=1`, { as: ada.as })).body.auditLog).toHaveLength(2)
    // The filters, applied by the database before it pages.
    const filtered = async (query: string) =>
      (await call("GET", `${P}/audit-log?${query}`, { as: ada.as })).body.auditLog.map(
        (e: { action: string; targetKey: string }) => `${e.action} ${e.targetKey}`,
      )
    expect(await filtered("key=DB_URL&limit=3&offset=1")).toEqual([
      "secret.restored DB_URL@1",
      "secret.read DB_URL@1",
      "secret.read DB_URL",
    ])
    expect(await filtered("action=secret.read&user=ADA@example.com")).toEqual([
      "secret.read DB_URL@1",
      "secret.read DB_URL",
    ])
    expect(await filtered("action=secrets.exported&key=json")).toEqual([])
    expect(await filtered("environment=production")).toEqual([])
    expect((await call("GET", `${P}/audit-log?action=nope`, { as: ada.as })).status).toBe(400)
    expect((await call("GET", `${P}/audit-log?key=DB_URL%401`, { as: ada.as })).status).toBe(400)
    // `qa` is deleted: its records are found by the other filters, not by its name.
    expect((await call("GET", `${P}/audit-log?environment=qa`, { as: ada.as })).status).toBe(404)

    expect((await call("DELETE", P, { as: bob.as })).status).toBe(404)
    expect((await call("DELETE", P, { as: ada.as })).body).toEqual({ ok: true })
    expect((await call("GET", P, { as: ada.as })).status).toBe(404)
  })

  it("people, invites and API keys, with every status", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const owner = await signIn("owner@example.com")
    const ada = await signIn("ada@example.com")
    const bob = await signIn("bob@example.com")
    await call("POST", "/api/projects", { as: owner.as, body: { name: "App" } })
    const P = "/api/projects/app"
    const S = `${P}/environments/production/secrets`
    await call("POST", S, { as: owner.as, body: { key: "TOKEN", value: "t0p" } })

    const invite = await call("POST", `${P}/invites`, { as: owner.as, body: { role: "write" } })
    expect(invite.status).toBe(201)
    expect(invite.body.url).toMatch(new RegExp(`^http://localhost:\\d+/invite#${invite.body.token}$`))
    expect((await call("POST", `${P}/invites`, { as: ada.as, body: {} })).status).toBe(404)
    expect((await call("GET", `${P}/invites`, { as: owner.as })).body.invites).toEqual([invite.body.invite])
    const accept = (as: As) => call("POST", "/api/invites/accept", { as, body: { token: invite.body.token } })
    expect((await accept(owner.as)).status).toBe(409)
    expect((await accept(ada.as)).body.project).toMatchObject({ slug: "app", role: "write" })
    expect((await accept(bob.as)).status).toBe(404)
    const readInvite = await call("POST", `${P}/invites`, { as: owner.as })
    const withdrawn = await call("POST", `${P}/invites`, { as: owner.as })
    expect((await call("DELETE", `${P}/invites/${withdrawn.body.invite.id}`, { as: owner.as })).body).toEqual({
      ok: true,
    })
    expect(
      (await call("POST", "/api/invites/accept", { as: bob.as, body: { token: withdrawn.body.token } })).status,
    ).toBe(404)
    await call("POST", "/api/invites/accept", { as: bob.as, body: { token: readInvite.body.token } })

    const members = (await call("GET", `${P}/members`, { as: bob.as })).body.members
    expect(members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ["owner@example.com", "owner"],
      ["ada@example.com", "write"],
      ["bob@example.com", "read"],
    ])
    expect((await call("PATCH", `${P}/members/${bob.userId}`, { as: ada.as, body: { role: "write" } })).status).toBe(
      403,
    )

    // Keys: a read member makes read keys only; a write key stops writing once its holder is moved down.
    expect(
      (await call("POST", "/api/api-keys", { as: bob.as, body: { name: "k", projectSlug: "app", scope: "write" } }))
        .status,
    ).toBe(403)
    const bobKey = await call("POST", "/api/api-keys", { as: bob.as, body: { name: "bob ci", projectSlug: "app" } })
    expect(bobKey.status).toBe(201)
    const adaKey = await call("POST", "/api/api-keys", {
      as: ada.as,
      body: { name: "deploy", projectSlug: "app", scope: "write", expiresInDays: 30 },
    })
    expect(adaKey.body).toMatchObject({ name: "deploy", scope: "write", prefix: adaKey.body.key.slice(0, 12) })
    expect(
      (await call("POST", "/api/api-keys", { as: ada.as, body: { name: "k", projectSlug: "app", expiresInDays: 0 } }))
        .status,
    ).toBe(400)
    expect(
      (
        await call("POST", "/api/api-keys", {
          as: ada.as,
          body: { name: "k", projectSlug: "app", expiresInDays: 3651 },
        })
      ).status,
    ).toBe(400)
    const asAda = { key: adaKey.body.key }
    expect((await call("GET", `${S}/TOKEN`, { as: asAda })).body.secret.value).toBe("t0p")
    expect((await call("POST", S, { as: asAda, body: { key: "NEW", value: "1" } })).status).toBe(201)
    expect((await call("POST", S, { as: { key: bobKey.body.key }, body: { key: "NEW", value: "2" } })).status).toBe(403)
    expect((await call("GET", `${P}/members`, { as: asAda })).status).toBe(403)
    expect((await call("GET", "/api/api-keys", { as: asAda })).status).toBe(403)
    expect((await call("PATCH", `${P}/members/${ada.userId}`, { as: owner.as, body: { role: "read" } })).body).toEqual({
      ok: true,
    })
    expect((await call("POST", S, { as: asAda, body: { key: "NEW", value: "3" } })).status).toBe(403)

    // Another project is out of the key's reach.
    await call("POST", "/api/projects", { as: ada.as, body: { name: "Other" } })
    expect((await call("GET", "/api/projects/other", { as: asAda })).status).toBe(404)

    const visible = (await call("GET", "/api/api-keys?project=app", { as: owner.as })).body.apiKeys
    expect(visible.map((k: { name: string }) => k.name).sort()).toEqual(["bob ci", "deploy"])
    expect(visible.find((k: { name: string }) => k.name === "deploy").lastUsedAt).toMatch(ISO)
    expect(JSON.stringify(visible)).not.toContain(adaKey.body.key)
    expect((await call("POST", `/api/api-keys/${adaKey.body.id}/rotate`, { as: owner.as })).status).toBe(403)
    // A read member holds read keys only: her write key gets no new value until she may write again.
    expect(await call("POST", `/api/api-keys/${adaKey.body.id}/rotate`, { as: ada.as })).toMatchObject({
      status: 403,
      body: { error: "Read members can hold only read keys: delete this write key and create a read key instead" },
    })
    await call("PATCH", `${P}/members/${ada.userId}`, { as: owner.as, body: { role: "write" } })
    const rotated = await call("POST", `/api/api-keys/${adaKey.body.id}/rotate`, {
      as: ada.as,
      body: { expiresInDays: 7 },
    })
    expect(rotated.status).toBe(200)
    expect((await call("GET", "/api/projects", { as: asAda })).status).toBe(401)
    expect((await call("GET", "/api/projects", { as: { key: rotated.body.key } })).status).toBe(200)
    expect((await call("DELETE", `/api/api-keys/${bobKey.body.id}`, { as: ada.as })).status).toBe(404)
    // The audited read (the hot path: key, project and environment each looked up in one statement) refuses a
    // deleted key on the very next request.
    expect((await call("GET", `${S}/TOKEN`, { as: { key: bobKey.body.key } })).body.secret.value).toBe("t0p")
    expect((await call("DELETE", `/api/api-keys/${bobKey.body.id}`, { as: owner.as })).body).toEqual({ ok: true })
    expect((await call("GET", `${S}/TOKEN`, { as: { key: bobKey.body.key } })).status).toBe(401)

    // An expired key answers 401 with a message saying so.
    await database.exec("update secrets_api_keys set expires_at = $1 where id = $2", [
      "2000-01-01T00:00:00.000Z",
      adaKey.body.id,
    ])
    expect(await call("GET", "/api/projects", { as: { key: rotated.body.key } })).toMatchObject({
      status: 401,
      body: { error: "API key has expired" },
    })

    // Leaving takes one's keys for the project along.
    const again = await call("POST", "/api/api-keys", { as: ada.as, body: { name: "again", projectSlug: "app" } })
    expect((await call("DELETE", `${P}/members/${ada.userId}`, { as: ada.as })).body).toEqual({ ok: true })
    expect((await call("GET", "/api/projects", { as: { key: again.body.key } })).status).toBe(401)
    expect((await call("DELETE", `${P}/members/${owner.userId}`, { as: owner.as })).status).toBe(400)
    expect((await call("GET", `${S}/TOKEN`, { as: bob.as })).status).toBe(200)
    expect((await call("DELETE", `${P}/members/${bob.userId}`, { as: owner.as })).body).toEqual({ ok: true })
    // A removed member is refused by the secret routes on the next request, reading and writing.
    expect((await call("GET", `${S}/TOKEN`, { as: bob.as })).status).toBe(404)
    expect((await call("POST", S, { as: bob.as, body: { key: "TOKEN", value: "x" } })).status).toBe(404)
    const log = (await call("GET", `${P}/audit-log?limit=500`, { as: owner.as })).body.auditLog
    const actions = log.map((e: { action: string; targetKey: string }) => `${e.action} ${e.targetKey}`)
    expect(actions).toEqual(
      expect.arrayContaining([
        "member.removed bob@example.com",
        "member.removed ada@example.com",
        "member.updated ada@example.com:read",
        "member.joined ada@example.com:write",
        "invite.created write",
        "invite.deleted read",
        "api_key.created deploy",
        "api_key.rotated deploy",
        "api_key.deleted bob ci",
        // Ada's key went when she left, logged as deleted by her.
        "api_key.deleted again",
      ]),
    )
  })

  it("keeps every version of concurrent writers, contiguous, and stores no plaintext", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    const marker = `plaintext-${randomBytes(8).toString("hex")}`
    const writers = 16
    const results = await Promise.all(
      Array.from({ length: writers }, (_, i) =>
        call("POST", S, { as: ada.as, body: { key: "HOT", value: `${marker}-${i}` } }),
      ),
    )
    expect(results.filter((r) => r.status === 201)).toHaveLength(1)
    expect(results.filter((r) => r.status === 200)).toHaveLength(writers - 1)
    expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: writers }, (_, i) => i + 1),
    )
    for (const [i, result] of results.entries()) {
      const version = await call("GET", `${S}/HOT/versions/${result.body.version}`, { as: ada.as })
      expect(version.body.secret.value).toBe(`${marker}-${i}`)
    }
    const dump = await database.dump()
    expect(dump).toContain("csv2.1.")
    expect(dump).not.toContain(marker)
  })

  it("lets one of eight concurrent writes with the same expectedVersion land; the others answer 409", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    await call("POST", S, { as: ada.as, body: { key: "HOT", value: "base" } })
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call("POST", S, { as: ada.as, body: { key: "HOT", value: `mine-${i}`, expectedVersion: 1 } }),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409])
    const won = answers.findIndex((answer) => answer.status === 200)
    expect(answers[won]!.body).toEqual({ ok: true, action: "updated", version: 2 })
    for (const answer of answers.filter((answer) => answer.status === 409)) {
      expect(answer.body).toEqual({
        error: "HOT is at version 2, not 1: it changed since it was read",
        currentVersion: 2,
      })
    }
    const versions = await call("GET", `${S}/HOT/versions`, { as: ada.as })
    expect(versions.body.versions.map((version: { version: number }) => version.version)).toEqual([2, 1])
    expect((await call("GET", `${S}/HOT`, { as: ada.as })).body.secret).toMatchObject({ value: `mine-${won}` })
    const updated = await call("GET", "/api/projects/app/audit-log?action=secret.updated", { as: ada.as })
    expect(updated.body.auditLog).toHaveLength(1)
  })

  it("answers concurrent deletes of one thing with one 200 and 404 for the rest, and audits one", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    const P = "/api/projects/app"
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    await call("POST", `${P}/environments/production/secrets`, { as: ada.as, body: { key: "K", value: "v" } })
    const key = await call("POST", "/api/api-keys", { as: ada.as, body: { name: "ci", projectSlug: "app" } })
    const invite = await call("POST", `${P}/invites`, { as: ada.as })
    // On Postgres each request's lookup may find the thing before another's delete commits.
    const together = async (path: string) => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => call("DELETE", path, { as: ada.as })))
      return answers.map((answer) => answer.status).sort()
    }
    const once = [200, 404, 404, 404, 404, 404, 404, 404]
    const recorded = async (action: string) =>
      (await call("GET", `${P}/audit-log?action=${action}`, { as: ada.as })).body.auditLog.length
    expect(await together(`${P}/environments/production/secrets/K`)).toEqual(once)
    expect(await recorded("secret.deleted")).toBe(1)
    expect(await together(`${P}/invites/${invite.body.invite.id}`)).toEqual(once)
    expect(await recorded("invite.deleted")).toBe(1)
    expect(await together(`/api/api-keys/${key.body.id}`)).toEqual(once)
    expect(await recorded("api_key.deleted")).toBe(1)
    expect(await together(`${P}/environments/production`)).toEqual(once)
    expect(await recorded("environment.deleted")).toBe(1)
    expect(await together(P)).toEqual(once)
    // The project's log outlives it, out of the API's reach.
    const rows = await database.all("select count(*) as n from secrets_audit_log where action = $1", [
      "project.deleted",
    ])
    expect(Number(rows[0]!.n)).toBe(1)
  })

  it("answers concurrent rotations of one API key with 200 or 409, and only a 200 hands out a value", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const recorded = async (name: string) =>
      (await call("GET", "/api/projects/app/audit-log?action=api_key.rotated", { as: ada.as })).body.auditLog.filter(
        (entry: { targetKey: string }) => entry.targetKey === name,
      ).length
    // A rotation that reads the key after another one's write lands on top, as a later request would: which answers
    // lose depends on timing, so four keys are rotated eight times at once each and every answer is checked.
    let lost = 0
    for (const name of ["one", "two", "three", "four"]) {
      const { body } = await call("POST", "/api/api-keys", { as: ada.as, body: { name, projectSlug: "app" } })
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => call("POST", `/api/api-keys/${body.id}/rotate`, { as: ada.as })),
      )
      const won = answers.filter((answer) => answer.status === 200)
      for (const answer of answers.filter((answer) => answer.status !== 200)) {
        expect(answer).toMatchObject({
          status: 409,
          body: { error: expect.stringMatching(/^Another request rotated/) },
        })
        lost++
      }
      // One record per value handed out, and the newest of them (the key list shows its prefix) is the one that works.
      expect(await recorded(name)).toBe(won.length)
      const { apiKeys } = (await call("GET", "/api/api-keys?project=app", { as: ada.as })).body
      const { keyPrefix } = apiKeys.find((key: { id: string }) => key.id === body.id)
      const current = won.filter((answer) => answer.body.prefix === keyPrefix)
      expect(current).toHaveLength(1)
      expect((await call("GET", "/api/projects", { as: { key: current[0]!.body.key } })).status).toBe(200)
    }
    // On Postgres the requests run side by side and most find the key rotated before they write (without the store's
    // compare-and-set every one answered 200, and all but the last value never worked). On SQLite, one process with
    // one writer, they may take turns (under Bun they do), and then each answers 200 as a later request would.
    if (backend === "Postgres") expect(lost).toBeGreaterThan(0)
  })

  it("never brings back a secret whose restore raced its delete", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    const P = "/api/projects/app"
    const S = `${P}/environments/development/secrets`
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const keys = Array.from({ length: 12 }, (_, i) => `K${i}`)
    for (const key of keys) {
      await call("POST", S, { as: ada.as, body: { key, value: "old" } })
      await call("POST", S, { as: ada.as, body: { key, value: "new" } })
    }
    const answers = await Promise.all(
      keys.map((key) =>
        Promise.all([
          call("POST", `${S}/${key}/versions/1/restore`, { as: ada.as }),
          call("DELETE", `${S}/${key}`, { as: ada.as }),
        ]),
      ),
    )
    // Either order ends with the secret gone: restored then deleted (200, 200), or deleted first and the restore
    // finding no version 1 (404, 200). A restore whose write followed the delete used to bring it back as version 1.
    for (const [restore, remove] of answers) {
      expect([200, 404]).toContain(restore.status)
      expect(remove.status).toBe(200)
    }
    for (const key of keys) expect((await call("GET", `${S}/${key}`, { as: ada.as })).status).toBe(404)
    const { auditLog } = (await call("GET", `${P}/audit-log?action=secret.restored&limit=500`, { as: ada.as })).body
    expect(auditLog).toHaveLength(answers.filter(([restore]) => restore.status === 200).length)
  })

  it("ends an invite accepted while its project is deleted as if the two ran in turn", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    const bob = await signIn("bob@example.com")
    const slugs = Array.from({ length: 12 }, (_, i) => `app-${i}`)
    const tokens: Array<string> = []
    for (const slug of slugs) {
      await call("POST", "/api/projects", { as: ada.as, body: { name: slug } })
      tokens.push(
        (await call("POST", `/api/projects/${slug}/invites`, { as: ada.as, body: { role: "write" } })).body.token,
      )
    }
    // On Postgres the accept's membership insert and the delete's cascade lock the same rows in opposite orders, and
    // one of the two transactions may be chosen as a deadlock's victim: the store runs it again, so the request
    // still ends as one of the two orders would have it, never as a 500.
    const answers = await Promise.all(
      slugs.map((slug, i) =>
        Promise.all([
          call("POST", "/api/invites/accept", { as: bob.as, body: { token: tokens[i] } }),
          call("DELETE", `/api/projects/${slug}`, { as: ada.as }),
        ]),
      ),
    )
    for (const [accept, remove] of answers) {
      expect([200, 404]).toContain(accept.status)
      expect(remove.status).toBe(200)
    }
    // Whichever came first, the project is gone for both, and nothing of it is left behind: no membership, no invite.
    expect((await call("GET", "/api/projects", { as: bob.as })).body.projects).toEqual([])
    for (const slug of slugs) expect((await call("GET", `/api/projects/${slug}`, { as: ada.as })).status).toBe(404)
    for (const table of ["secrets_projects", "secrets_members", "secrets_invites"]) {
      expect(Number((await database.all(`select count(*) as n from ${table}`, []))[0]!.n)).toBe(0)
    }
  })

  it("refuses a value with an unpaired surrogate (400, nothing stored) and keeps any well-formed text exactly", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const P = "/api/projects/app"
    const S = `${P}/environments/development/secrets`
    await call("POST", S, { as: ada.as, body: { key: "KEPT", value: "v1" } })
    // JSON writes an unpaired surrogate only as an escape; UTF-8, which every store keeps text in, has none.
    for (const [key, value] of [
      ["NEW", "a\\ud800b"],
      ["NEW", "\\udc00"],
      ["KEPT", "\\ude00\\ud83d"],
    ]) {
      const answer = await call("POST", S, { as: ada.as, body: `{"key":"${key}","value":"${value}"}` })
      expect([key, value, answer.status, answer.body]).toEqual([
        key,
        value,
        400,
        { error: "Secret value must be well-formed Unicode (it has an unpaired surrogate)" },
      ])
    }
    expect((await call("GET", `${S}/NEW`, { as: ada.as })).status).toBe(404)
    expect((await call("GET", `${S}/KEPT`, { as: ada.as })).body.secret).toMatchObject({ value: "v1", version: 1 })
    const actions = (await call("GET", `${P}/audit-log`, { as: ada.as })).body.auditLog.map(
      (entry: { action: string }) => entry.action,
    )
    expect(actions.filter((action: string) => action !== "secret.read" && action.startsWith("secret."))).toEqual([
      "secret.created",
    ])
    const rows = await database.all("select count(*) as n from secrets_secret_versions")
    expect(Number(rows[0]!.n)).toBe(1)

    // Surrogate pairs (characters outside the Basic Multilingual Plane), U+FFFD, NUL, separators: read back as sent.
    const hard = "😀 🚀 \ud83d\ude00 \ufffd \u0000 \u2028\u2029 \u202e e\u0301 東京"
    expect((await call("POST", S, { as: ada.as, body: { key: "HARD", value: hard } })).status).toBe(201)
    expect((await call("GET", `${S}/HARD`, { as: ada.as })).body.secret.value).toBe(hard)
    expect((await call("GET", `${S}/json`, { as: ada.as })).body.HARD).toBe(hard)
  })

  it("never lets a secret value out: not in logs, error bodies, audit rows, Redis or the database", async () => {
    const database = await makeDatabase()
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await redis.connect()
    try {
      const { host, call, signIn, oversized } = await serve(database, { COFFER_REDIS_URL: redisUrl })
      const ada = await signIn("ada@example.com")
      const bob = await signIn("bob@example.com")
      await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
      const S = "/api/projects/app/environments/development/secrets"
      const sentinel = `sentinel-${randomBytes(12).toString("hex")}`
      const failures: Array<Reply> = []
      const refused = async (reply: Promise<Reply>, status: number) => {
        const answer = await reply
        expect(answer.status).toBe(status)
        failures.push(answer)
      }

      // Every way a value is written, read and exported.
      expect((await call("POST", S, { as: ada.as, body: { key: "KEY", value: sentinel } })).status).toBe(201)
      expect((await call("GET", `${S}/KEY`, { as: ada.as })).body.secret.value).toBe(sentinel)
      expect((await call("GET", `${S}/.env`, { as: ada.as })).text).toContain(sentinel)
      expect((await call("GET", `${S}/json`, { as: ada.as })).body.KEY).toBe(sentinel)
      await call("POST", S, { as: ada.as, body: { key: "KEY", value: "other" } })
      expect((await call("GET", `${S}/KEY/versions`, { as: ada.as })).status).toBe(200)
      expect((await call("POST", `${S}/KEY/versions/1/restore`, { as: ada.as })).body.version).toBe(3)
      expect((await call("GET", `${S}/KEY/versions/1`, { as: ada.as })).body.secret.value).toBe(sentinel)
      const { key } = (
        await call("POST", "/api/api-keys", { as: ada.as, body: { name: "ci", projectSlug: "app", scope: "read" } })
      ).body
      expect((await call("GET", `${S}/KEY`, { as: { key } })).body.secret.value).toBe(sentinel)

      // Every way a request carrying the value can fail.
      await refused(call("POST", S, { as: ada.as, body: { key: "bad key!", value: sentinel } }), 400)
      await refused(call("POST", S, { as: ada.as, body: { key: "K".repeat(300), value: sentinel } }), 400)
      await refused(call("POST", S, { as: ada.as, body: { key: "KEY", value: sentinel.repeat(3000) } }), 413)
      await refused(call("POST", S, { as: ada.as, body: { key: "KEY", value: 42, note: sentinel } }), 400)
      await refused(call("POST", S, { as: ada.as, body: `{"key":"KEY","value":"${sentinel}"` }), 400)
      await refused(
        call("POST", S, {
          as: ada.as,
          body: { key: "KEY", value: sentinel },
          headers: { "content-type": "text/plain" },
        }),
        415,
      )
      await refused(call("POST", S, { as: bob.as, body: { key: "KEY", value: sentinel } }), 404)
      await refused(call("POST", S, { as: { key }, body: { key: "KEY", value: sentinel } }), 403)
      await refused(
        call("POST", S.replace("development", `env-${sentinel}`), { as: ada.as, body: { key: "K", value: sentinel } }),
        404,
      )
      await refused(call("GET", `${S}/KEY`, { as: { key: `${key}x` } }), 401)
      const tooLarge = await oversized(S, ada.as, 2 * 1024 * 1024)
      expect(tooLarge.status).toBe(413)
      failures.push({ status: tooLarge.status, body: undefined, text: tooLarge.body, headers: new Headers() })

      for (const failure of failures) expect(failure.text).not.toContain(sentinel)
      const audit = await call("GET", "/api/projects/app/audit-log?limit=100", { as: ada.as })
      expect(audit.body.auditLog.length).toBeGreaterThan(5)
      expect(audit.text).not.toContain(sentinel)
      expect(host.output()).not.toContain(sentinel)
      expect(await database.dump()).not.toContain(sentinel)
      const cached: Array<string> = []
      for (const cacheKey of await redis.keys("*")) {
        cached.push(cacheKey)
        if ((await redis.type(cacheKey)) === "string") cached.push((await redis.get(cacheKey)) ?? "")
        else cached.push(JSON.stringify(await redis.dump(cacheKey)))
      }
      expect(cached.join("\n")).not.toContain(sentinel)
    } finally {
      redis.disconnect()
    }
  })

  it("fails cleanly when a ciphertext is moved to another row", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    await call("POST", S, { as: ada.as, body: { key: "A", value: "value of A" } })
    await call("POST", S, { as: ada.as, body: { key: "B", value: "value of B" } })
    const rows = await database.all(
      "select s.key, v.value from secrets_secret_versions v join secrets_secrets s on s.id = v.secret_id",
    )
    const sealedA = rows.find((row) => row.key === "A")!.value
    await database.exec(
      "update secrets_secret_versions set value = $1 where secret_id = (select id from secrets_secrets where key = $2)",
      [sealedA, "B"],
    )
    const read = await call("GET", `${S}/B`, { as: ada.as })
    expect(read.status).toBe(500)
    expect(read.body).toEqual({ error: expect.stringContaining("could not be decrypted") })
    expect(read.text).not.toMatch(/value of|at .*\.js|stack/i)
    expect((await call("GET", `${S}/json`, { as: ada.as })).status).toBe(500)
    expect((await call("GET", `${S}/A`, { as: ada.as })).body.secret.value).toBe("value of A")
  })

  it("returns no value when its audit entry cannot be written", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    await call("POST", S, { as: ada.as, body: { key: "K", value: "audited value" } })
    const sqlite = database.env.COFFER_DATABASE_URL!.startsWith("sqlite:")
    if (sqlite) {
      await database.exec(
        "create trigger refuse_audit before insert on secrets_audit_log begin select raise(abort, 'audit log refused'); end",
      )
    } else {
      await database.exec(
        "create function refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit log refused'; end $$",
      )
      await database.exec(
        "create trigger refuse_audit before insert on secrets_audit_log for each row execute function refuse_audit()",
      )
    }
    for (const path of [`${S}/K`, `${S}/K/versions/1`, `${S}/.env`, `${S}/json`]) {
      const response = await call("GET", path, { as: ada.as })
      expect([path, response.status]).toEqual([path, 500])
      expect(response.text).not.toContain("audited value")
    }
    expect((await call("POST", S, { as: ada.as, body: { key: "K", value: "next" } })).status).toBe(500)
    expect((await call("GET", `${S}/K/versions`, { as: ada.as })).body.versions).toHaveLength(1)
  })

  it("limits failed credentials per client with 429", async () => {
    const database = await makeDatabase()
    const { call } = await serve(database, { COFFER_RATE_LIMIT: "2" })
    const bad = { key: `cfk_${"x".repeat(43)}` }
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await call("GET", "/api/projects", { as: bad })).status)
    expect(statuses).toEqual([401, 401, 429, 429])
  })

  it("answers bad input with 4xx JSON and changes nothing", async () => {
    const database = await makeDatabase()
    const { call, signIn, raw, oversized } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    await call("POST", S, { as: ada.as, body: { key: "K", value: "v" } })
    const before = (await call("GET", "/api/projects/app/audit-log?limit=500", { as: ada.as })).body.auditLog.length
    const attempts: Array<Reply> = [
      await call("POST", S, { as: ada.as, body: "{oops" }),
      await call("POST", S, { as: ada.as, body: { key: ["K"], value: "v" } }),
      await call("POST", S, { as: ada.as, body: { key: "K", value: 7 } }),
      await call("POST", S, { as: ada.as, body: "key=K", headers: { "content-type": "text/plain" } }),
      await call("POST", S, { as: ada.as, body: { key: "Ｋ", value: "v" } }),
      await call("POST", S, { as: ada.as, body: { key: "K\u0000", value: "v" } }),
      await call("POST", "/api/projects/app/environments", { as: ada.as, body: { name: "dev\u0435lopment" } }),
      await call("DELETE", `${S}/K%2F..%2F..`, { as: ada.as }),
      await call("GET", "/api/projects/app/environments/development%2F..%2Fstaging/secrets", { as: ada.as }),
      // A NUL names nothing any store holds (Postgres text cannot hold one): not found, as on every other store.
      await call("GET", `${S}/K%00`, { as: ada.as }),
      await call("DELETE", `${S}/K%00`, { as: ada.as }),
      await call("GET", "/api/projects/app/environments/development%00/secrets", { as: ada.as }),
      await call("DELETE", "/api/projects/app%00", { as: ada.as }),
      await call("DELETE", "/api/projects/app/members/%00", { as: ada.as }),
      await call("DELETE", "/api/api-keys/%00", { as: ada.as }),
      // Nor does a NUL in a query value: the audit log's filters refuse it before any lookup.
      await call("GET", "/api/projects/app/audit-log?environment=development%00", { as: ada.as }),
      await call("GET", "/api/projects/app/audit-log?user=ada%00@example.com", { as: ada.as }),
    ]
    for (const attempt of attempts) {
      expect(attempt.status).toBeGreaterThanOrEqual(400)
      expect(attempt.status).toBeLessThan(500)
      expect(attempt.body).toEqual({ error: expect.any(String) })
    }
    for (const path of [
      `${S}/../../../../projects`,
      `${S}/..%2f..%2fK`,
      "/api/projects/app/environments/../../app/environments/development/secrets/..",
    ]) {
      const response = await raw("DELETE", path, ada.as)
      expect([path, response.status >= 400 && response.status < 500]).toEqual([path, true])
      expect(JSON.parse(response.body)).toEqual({ error: expect.any(String) })
    }
    const tooLarge = await oversized(S, ada.as, 1024 * 1024 + 100)
    expect(tooLarge.status).toBe(413)
    expect(JSON.parse(tooLarge.body)).toEqual({ error: expect.any(String) })
    const after = await call("GET", "/api/projects/app/audit-log?limit=500", { as: ada.as })
    expect(after.body.auditLog.length).toBe(before)
    expect((await call("GET", `${S}/K`, { as: ada.as })).body.secret.value).toBe("v")
  })

  it("reads a body sent in pieces, declared or chunked, and stores nothing from one cut short", async () => {
    const database = await makeDatabase()
    const { call, signIn, streamed } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    const pieces = (key: string) => ['{"key":', `"${key}",`, '"value":"é ✓ 🔑"}']
    const length = (key: string) => Buffer.byteLength(pieces(key).join(""))

    const declared = await streamed(S, ada.as, pieces("DECLARED"), { length: length("DECLARED") })
    const chunked = await streamed(S, ada.as, pieces("CHUNKED"))
    expect([declared, chunked]).toMatchObject([{ status: 201 }, { status: 201 }])
    for (const key of ["DECLARED", "CHUNKED"]) {
      expect((await call("GET", `${S}/${key}`, { as: ada.as })).body.secret.value).toBe("é ✓ 🔑")
    }

    // The client goes away mid-body: nothing is stored, and the service goes on answering.
    const cut = await streamed(S, ada.as, pieces("CUT").slice(0, 2), { length: length("CUT"), cut: true })
    expect(cut).toBe("cut")
    const listed = await call("GET", S, { as: ada.as })
    expect(listed.body.secrets.map((secret: { key: string }) => secret.key).sort()).toEqual(["CHUNKED", "DECLARED"])
  })

  it("exports a .env that bash and dotenv read back exactly, and that runs nothing", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/production/secrets"
    const directory = freshDirectory()
    const canary = join(directory, "ran")
    const corpus: Record<string, string> = {
      PLAIN: "abc_./:@%+,=-123",
      EMPTY: "",
      SPACES: "  two  spaces  ",
      HASH: "a # not a comment",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, which the export must not perform.
      VAR: "$HOME and ${PATH}",
      COMMAND: `$(touch ${canary}) and \`touch ${canary}\``,
      DOUBLE: 'say "hi"',
      BACKSLASH: "C:\\path\\to",
      NEWLINES: "line one\nline two\n",
      UNICODE: "ünïcødé ✓ 🎉",
      EQUALS: "a=b=c",
      SINGLE: "it's here",
      SINGLE_HARD: `it's $HOME "quoted" \\ \`x\``,
    }
    for (const [key, value] of Object.entries(corpus)) await call("POST", S, { as: ada.as, body: { key, value } })
    const file = join(directory, "production.env")
    writeFileSync(file, (await call("GET", `${S}/.env`, { as: ada.as })).text)
    const script = `set -a; . ${JSON.stringify(file)}; set +a; node -e 'const keys = process.argv.slice(1); process.stdout.write(JSON.stringify(Object.fromEntries(keys.map((k) => [k, process.env[k]]))))' ${Object.keys(corpus).join(" ")}`
    const fromBash = JSON.parse(
      execFileSync("bash", ["--norc", "--noprofile", "-c", script], {
        env: { PATH: process.env.PATH ?? "" },
      }).toString(),
    )
    expect(fromBash).toEqual(corpus)
    expect(readdirSync(directory)).not.toContain("ran")
    const fromDotenv = parseDotenv(readFileSync(file))
    // Seed 001 §4 rule 3: values with a single quote are exact in a shell; dotenv keeps their backslashes.
    const { SINGLE_HARD: _hard, ...exact } = corpus
    expect(fromDotenv).toMatchObject(exact)
    expect((await call("GET", `${S}/json`, { as: ada.as })).body).toEqual(corpus)
  })

  it("re-wraps every data key with `coffer keys rotate` while serving; values read throughout", async () => {
    const database = await makeDatabase()
    const oldKey = masterKey()
    const newKey = masterKey()
    const cwd = freshDirectory()
    const first = await serve(database, { COFFER_MASTER_KEY: oldKey })
    const ada = await first.signIn("ada@example.com")
    for (const name of ["One", "Two"]) {
      await first.call("POST", "/api/projects", { as: ada.as, body: { name } })
      await first.call("POST", `/api/projects/${name.toLowerCase()}/environments/production/secrets`, {
        as: ada.as,
        body: { key: "K", value: `secret of ${name}` },
      })
    }
    await first.host.stop()

    const rotating = {
      ...database.env,
      COFFER_ENV: "development",
      COFFER_MASTER_KEY: newKey,
      COFFER_MASTER_KEY_PREVIOUS: oldKey,
    }
    const second = await serve(database, rotating)
    const read = async (service: typeof second, slug: string, as: As) =>
      service.call("GET", `/api/projects/${slug}/environments/production/secrets/K`, { as })
    const ada2 = await second.signIn("ada@example.com")
    expect((await read(second, "one", ada2.as)).body.secret.value).toBe("secret of One")

    const rotated = await run(["keys", "rotate"], { env: rotating, cwd })
    expect(rotated.code).toBe(0)
    expect(rotated.stdout).toMatch(/re-wrapped 2 of 2 project data keys under master key [0-9a-f]{16}/)
    expect(rotated.stdout + rotated.stderr).not.toContain(newKey)
    expect(rotated.stdout + rotated.stderr).not.toContain(oldKey)
    // The running service reads on, with the re-wrapped keys.
    expect((await read(second, "two", ada2.as)).body.secret.value).toBe("secret of Two")
    const again = await run(["keys", "rotate"], { env: rotating, cwd })
    expect(again.stdout).toMatch(/re-wrapped 0 of 2 .*\(2 already under it\)/)
    await second.host.stop()

    // The old key is no longer needed; without the new one, values do not open (and nothing leaks).
    const third = await serve(database, { COFFER_MASTER_KEY: newKey })
    const ada3 = await third.signIn("ada@example.com")
    expect((await read(third, "one", ada3.as)).body.secret.value).toBe("secret of One")
    expect((await read(third, "two", ada3.as)).body.secret.value).toBe("secret of Two")
    await third.host.stop()
    // The old key alone no longer opens the data: the start is refused, naming the setting (issue 15, item 4).
    const stale = await run(["serve", "--only", "secrets"], {
      env: { ...database.env, COFFER_ENV: "development", COFFER_SECRETS_PORT: "0", COFFER_MASTER_KEY: oldKey },
      cwd,
    })
    expect(stale.code).toBe(1)
    expect(stale.stderr).toMatch(/^coffer: COFFER_MASTER_KEY does not open the data in this database/m)
    expect(stale.stdout + stale.stderr).not.toContain(oldKey)
    const missing = await run(["keys", "rotate"], {
      env: { ...database.env, COFFER_ENV: "development", COFFER_MASTER_KEY: oldKey },
      cwd,
    })
    // A key that opens nothing here is said once, not as one failure per data key.
    expect([missing.code, missing.stderr.trim().split("\n")]).toEqual([
      1,
      [expect.stringMatching(/^coffer: keys rotate: COFFER_MASTER_KEY does not open the data in this database/)],
    ])
  })
  /** Every stored sealed value of the project with this slug, from the database itself. */
  const sealedOf = async (database: RawDatabase, slug: string) =>
    (
      await database.all(
        `select v.value from secrets_secret_versions v join secrets_secrets s on s.id = v.secret_id
         join secrets_environments e on e.id = s.environment_id join secrets_projects p on p.id = e.project_id
         where p.slug = $1`,
        [slug],
      )
    ).map((row) => String(row.value))

  it("rotates data keys with `coffer keys rotate --data-keys` while writes and reads run; nothing is lost", async () => {
    const database = await makeDatabase()
    const key = masterKey()
    const cwd = freshDirectory()
    const env = { ...database.env, COFFER_ENV: "development", COFFER_MASTER_KEY: key }
    const { call, signIn } = await serve(database, env)
    const ada = await signIn("ada@example.com")
    for (const name of ["One", "Two"]) await call("POST", "/api/projects", { as: ada.as, body: { name } })
    const S = (slug: string, environment = "production") => `/api/projects/${slug}/environments/${environment}/secrets`
    const written = new Map<string, Array<string>>()
    const write = async (slug: string, environment: string, name: string, value: string) => {
      const reply = await call("POST", S(slug, environment), { as: ada.as, body: { key: name, value } })
      expect([reply.status, reply.text]).toEqual([reply.status < 300 ? reply.status : 200, reply.text])
      const id = `${slug}/${environment}/${name}`
      written.set(id, [...(written.get(id) ?? []), value])
    }
    for (let i = 0; i < 20; i++) {
      await write("one", i % 2 === 0 ? "production" : "staging", `K${i % 5}`, `one value ${i}`)
    }
    await write("two", "production", "K", "two value")

    // Writers and readers keep going until the rotation is over.
    let rotating = true
    const traffic = async () => {
      let n = 0
      while (rotating) {
        await write("one", "production", "HOT", `hot value ${n++}`)
        const read = await call("GET", `${S("one")}/HOT`, { as: ada.as })
        expect([read.status, read.body?.secret?.value ?? read.text]).toEqual([200, `hot value ${n - 1}`])
        expect((await call("GET", `${S("one", "staging")}/K1`, { as: ada.as })).status).toBe(200)
      }
      return n
    }
    const rotation = run(["keys", "rotate", "--data-keys", "--project", "one"], { env, cwd }).finally(() => {
      rotating = false
    })
    const [rotated, writes] = await Promise.all([rotation, traffic()])
    expect([rotated.code, rotated.stderr]).toEqual([0, ""])
    expect(writes).toBeGreaterThan(0)
    expect(rotated.stdout).toMatch(/project one: data key version 2 \(new\): re-sealed \d+ values/)
    expect(rotated.stdout).toMatch(/rotated the data keys of 1 of 1 projects/)
    expect(rotated.stdout + rotated.stderr).not.toMatch(/value \d|two value/)
    expect(rotated.stdout + rotated.stderr).not.toContain(key)

    // Every version of every value reads as written; the other project was not touched.
    for (const [id, values] of written) {
      const [slug, environment, name] = id.split("/") as [string, string, string]
      expect((await call("GET", `${S(slug, environment)}/${name}`, { as: ada.as })).body.secret.value).toBe(
        values.at(-1),
      )
      for (const [i, value] of values.entries()) {
        const old = await call("GET", `${S(slug, environment)}/${name}/versions/${i + 1}`, { as: ada.as })
        expect([id, i + 1, old.body.secret.value]).toEqual([id, i + 1, value])
      }
    }
    expect((await sealedOf(database, "two")).every((value) => value.startsWith("csv2.1."))).toBe(true)
    // A second run finds what a writer sealed under version 1 meanwhile, if anything, and makes version 3.
    const again = await run(["keys", "rotate", "--data-keys"], { env, cwd })
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/project one: data key version 3 \(new\)/)
    expect(again.stdout).toMatch(/project two: data key version 2 \(new\): re-sealed 1 values/)
    expect((await sealedOf(database, "one")).every((value) => value.startsWith("csv2.3."))).toBe(true)
    expect((await sealedOf(database, "two")).every((value) => value.startsWith("csv2.2."))).toBe(true)
    const restored = await call("POST", `${S("one")}/K0/versions/1/restore`, { as: ada.as })
    expect(restored.status).toBe(200)
    expect((await call("GET", `${S("one")}/K0`, { as: ada.as })).body.secret.value).toBe("one value 0")
    const unknown = await run(["keys", "rotate", "--data-keys", "--project", "nope"], { env, cwd })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/no project has the slug "nope"/)
  })

  it("opens a csv1 value written before data-key versions, and the data-key rotation upgrades it to csv2", async () => {
    // The pinned blobs of adapters/crypto's XChaCha20Poly1305 test: a data key and a csv1 value sealed for project
    // `project`, environment `development`, key `API_KEY`, version 1, under the master key 1, 2, …, 32.
    const pinnedMasterKey = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1)).toString("base64")
    const dataKey =
      "cdk1.b0b0ad33bb74a25e.ejEIlQ11Exe_QoRhuMY6CZ7-xbnwKHr5p6_4d-zAXyib8ITasLnjE5dBmezvH-kEWJnewLtzm7w9k-OBAHDQaeI8uYx_39hl"
    const sealed = "csv1.Or8mgbt4JncGGWYS74oyp_HqyapuiTbuXNUoDB030AbZsEX__wbJ6Bry9Crmg4dm184L0eJWl7Yk"
    const database = await makeDatabase()
    const env = { ...database.env, COFFER_ENV: "development", COFFER_MASTER_KEY: pinnedMasterKey }
    const { call, signIn } = await serve(database, env)
    const ada = await signIn("ada@example.com")
    const at = "2026-01-31T12:00:00.000Z"
    // As an earlier release left it: rows without data-key versions of their own (0008 made this key version 1).
    await database.exec(
      "insert into secrets_projects (id, name, slug, owner_id, data_key, created_at) values ($1, $2, $3, $4, $5, $6)",
      ["project", "Legacy", "legacy", ada.userId, dataKey, at],
    )
    await database.exec("insert into secrets_members (project_id, user_id, role, created_at) values ($1, $2, $3, $4)", [
      "project",
      ada.userId,
      "owner",
      at,
    ])
    await database.exec("insert into secrets_environments (id, project_id, name, created_at) values ($1, $2, $3, $4)", [
      "development",
      "project",
      "development",
      at,
    ])
    await database.exec(
      "insert into secrets_secrets (id, environment_id, key, version, created_at, updated_at) values ($1, $2, $3, $4, $5, $6)",
      ["secret", "development", "API_KEY", 1, at, at],
    )
    await database.exec(
      "insert into secrets_secret_versions (secret_id, version, value, user_id, created_at) values ($1, $2, $3, $4, $5)",
      ["secret", 1, sealed, ada.userId, at],
    )
    const S = "/api/projects/legacy/environments/development/secrets"
    expect((await call("GET", `${S}/API_KEY`, { as: ada.as })).body.secret.value).toBe("pinned value \u2713\n")
    const rotated = await run(["keys", "rotate", "--data-keys"], { env, cwd: freshDirectory() })
    expect(rotated.code).toBe(0)
    expect(rotated.stdout).toMatch(
      /project legacy: data key version 2 \(new\): re-sealed 1 values \(1 upgraded from csv1\)/,
    )
    expect(rotated.stdout).not.toContain("pinned value")
    expect(await sealedOf(database, "legacy")).toEqual([expect.stringMatching(/^csv2\.2\./)])
    expect((await call("GET", `${S}/API_KEY`, { as: ada.as })).body.secret.value).toBe("pinned value \u2713\n")
    expect((await call("GET", `${S}/API_KEY/versions/1`, { as: ada.as })).body.secret.value).toBe(
      "pinned value \u2713\n",
    )
  })

  it("does not open a ciphertext copied from a deleted key into the key re-created under its name", async () => {
    const database = await makeDatabase()
    const { call, signIn } = await serve(database)
    const ada = await signIn("ada@example.com")
    await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
    const S = "/api/projects/app/environments/development/secrets"
    await call("POST", S, { as: ada.as, body: { key: "K", value: "deleted value" } })
    const [old] = await sealedOf(database, "app")
    expect((await call("DELETE", `${S}/K`, { as: ada.as })).status).toBe(200)
    await call("POST", S, { as: ada.as, body: { key: "K", value: "new value" } })
    // The new key's version 1, as an attacker with database access could set it: the old ciphertext, same row data.
    await database.exec(
      "update secrets_secret_versions set value = $1 where secret_id = (select id from secrets_secrets where key = $2)",
      [old, "K"],
    )
    const read = await call("GET", `${S}/K`, { as: ada.as })
    expect(read.status).toBe(500)
    expect(read.body).toEqual({ error: expect.stringContaining("could not be decrypted") })
    expect(read.text).not.toContain("deleted value")
  })
})
