/**
 * Outages the built host survives (issue 6, part 4), against `coffer serve` as operators run it:
 *
 * - Postgres cut off behind a TCP proxy of the test's own while the server keeps running: `/readyz` and API
 *   requests answer 503 with a JSON `{ error }` and no stack, the process stays up, and once the link is restored
 *   everything works again without a restart, with every write acknowledged before the cut still there.
 * - SIGKILL in the middle of many secret writes: on restart every secret's history is whole (versions 1..n, each
 *   one opens, the list shows n) and every acknowledged write is in it.
 * - SIGKILL in the middle of a schemas cascade: on restart either every dependent reflects the base's stored
 *   content or none does.
 *
 * The kills run on SQLite (a file in a fresh directory, reused across the restart) and on Postgres; the cut needs
 * a network link, so Postgres only. The Redis cut is covered in schemas.test.ts.
 */
import { randomBytes } from "node:crypto"
import { createPostgresDatabase, hasPostgres, type PostgresDatabase, startProxyFor } from "@coffer/contract"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { freshDirectory, type Host, start } from "./host.js"

const running: Array<Host> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((host) => host.stop("SIGKILL")))
})

const databases: Array<PostgresDatabase> = []
afterAll(async () => {
  await Promise.all(databases.splice(0).map((database) => database.drop()))
})

const postgresDatabase = async (): Promise<URL> => {
  const database = await createPostgresDatabase("e2e_outages")
  databases.push(database)
  return new URL(database.url)
}

interface Reply {
  readonly status: number
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions that read them.
  readonly body: any
  readonly text: string
}

const call = async (
  base: string,
  method: string,
  path: string,
  options: { cookie?: string; key?: string; body?: unknown } = {},
): Promise<Reply> => {
  const headers: Record<string, string> = {}
  if (options.cookie !== undefined) headers.cookie = options.cookie
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, body, text }
}

const signIn = async (base: string, email: string) => {
  const response = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  })
  expect(response.status).toBe(200)
  return response.headers.getSetCookie()[0]!.split(";")[0]!
}

/** A 503 as a client should see it: JSON with an `error` message and nothing else, no stack or driver detail. */
const expectUnavailable = (reply: Reply, what: string) => {
  expect(reply.status, what).toBe(503)
  expect(Object.keys(reply.body ?? {}), what).toEqual(["error"])
  expect(typeof reply.body.error, what).toBe("string")
  expect(reply.text, what).not.toMatch(/\n\s+at |ECONNRE|node_modules|\.ts:\d|\.js:\d/)
}

/** Where a host keeps its data: settings for the command, and the working directory a restart reuses. */
interface Store {
  readonly env: Record<string, string>
  readonly cwd: string
}

const backends: ReadonlyArray<readonly [string, () => Promise<Store>]> = [
  ["SQLite", async () => ({ env: { COFFER_DATABASE_URL: "sqlite:.coffer/outages.db" }, cwd: freshDirectory() })],
  ...((await hasPostgres())
    ? [
        [
          "Postgres",
          async () => ({ env: { COFFER_DATABASE_URL: (await postgresDatabase()).toString() }, cwd: freshDirectory() }),
        ] as const,
      ]
    : []),
]

const serve = async (only: "secrets" | "schemas", store: Store, env: Record<string, string> = {}) => {
  const host = await start({ args: ["serve", "--only", only], cwd: store.cwd, env: { ...store.env, ...env } })
  running.push(host)
  return host
}

/** Runs `work` over `items` with at most `width` at a time. */
const inBatches = async <A>(items: ReadonlyArray<A>, width: number, work: (item: A) => Promise<void>) => {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(work))
}

describe.runIf(await hasPostgres())("secrets service with Postgres cut off", () => {
  it("answers 503 JSON while cut, stays up, and after restore works again with every acknowledged write", async () => {
    const url = await postgresDatabase()
    const { proxy, url: through } = await startProxyFor(url.toString(), 5432)
    try {
      const host = await serve(
        "secrets",
        { env: { COFFER_DATABASE_URL: through }, cwd: freshDirectory() },
        { COFFER_MASTER_KEY: randomBytes(32).toString("base64") },
      )
      const base = host.secrets!
      const cookie = await signIn(base, "ada@example.com")
      expect((await call(base, "POST", "/api/projects", { cookie, body: { name: "Shop" } })).status).toBe(201)
      const S = "/api/projects/shop/environments/production/secrets"
      const key = (
        await call(base, "POST", "/api/api-keys", { cookie, body: { name: "ci", projectSlug: "shop", scope: "write" } })
      ).body.key as string
      const written: Array<{ key: string; version: number; value: string }> = []
      for (let i = 0; i < 6; i++) {
        for (const name of ["A", "B", "C"]) {
          const value = `${name}-${i}`
          const reply = await call(base, "POST", S, { cookie, body: { key: name, value } })
          expect(reply.status).toBe(i === 0 ? 201 : 200)
          written.push({ key: name, version: reply.body.version, value })
        }
      }
      expect((await call(base, "GET", `${S}/A`, { key })).status).toBe(200)

      proxy.cut()
      expectUnavailable(await call(base, "GET", "/readyz"), "readyz")
      expectUnavailable(await call(base, "GET", "/api/projects", { cookie }), "list projects")
      expectUnavailable(await call(base, "GET", `${S}/A`, { cookie }), "get a secret with a session")
      expectUnavailable(await call(base, "GET", `${S}/A`, { key }), "get a secret with a key")
      expectUnavailable(await call(base, "POST", S, { cookie, body: { key: "D", value: "lost" } }), "write")
      // Still 503 on a second round (no crash after the first failures), and the process is up.
      expectUnavailable(await call(base, "GET", "/api/projects", { cookie }), "list projects again")
      expect((await call(base, "GET", "/healthz")).status).toBe(200)
      expect(host.child.exitCode).toBeNull()

      proxy.restore()
      await expect
        .poll(async () => (await call(base, "GET", "/readyz")).status, { timeout: 15_000, interval: 200 })
        .toBe(200)
      expect((await call(base, "GET", "/api/projects", { cookie })).body.projects).toHaveLength(1)
      for (const { key: name, version, value } of written) {
        const reply = await call(base, "GET", `${S}/${name}/versions/${version}`, { key })
        expect(reply.status, `${name}@${version}`).toBe(200)
        expect(reply.body.secret.value, `${name}@${version}`).toBe(value)
      }
      const list = await call(base, "GET", S, { cookie })
      expect(list.body.secrets.map((s: { key: string; version: number }) => [s.key, s.version])).toEqual([
        ["A", 6],
        ["B", 6],
        ["C", 6],
      ])
      expect((await call(base, "GET", `${S}/D`, { cookie })).status).toBe(404)
      expect((await call(base, "POST", S, { key, body: { key: "D", value: "after" } })).body).toMatchObject({
        version: 1,
      })
      expect((await call(base, "GET", `${S}/D`, { cookie })).body.secret.value).toBe("after")
      expect(host.output()).not.toMatch(/Unhandled|uncaught/i)
    } finally {
      await proxy.close()
    }
  }, 60_000)
})

describe.each(backends)("a host killed with SIGKILL on %s", (_name, makeStore) => {
  it("mid-way through many secret writes leaves every history whole and every acknowledged write in it", async () => {
    const store = await makeStore()
    const env = { COFFER_MASTER_KEY: randomBytes(32).toString("base64") }
    const first = await serve("secrets", store, env)
    const cookie = await signIn(first.secrets!, "ada@example.com")
    expect((await call(first.secrets!, "POST", "/api/projects", { cookie, body: { name: "App" } })).status).toBe(201)
    const S = "/api/projects/app/environments/production/secrets"

    const keys = Array.from({ length: 10 }, (_, i) => `KEY_${i}`)
    const rounds = 15
    const total = keys.length * rounds
    const acknowledged: Array<{ key: string; version: number; value: string }> = []
    let failed = 0
    let killed: Promise<number | null> | undefined
    const writes = keys.flatMap((key) =>
      Array.from({ length: rounds }, async (_, round) => {
        const value = `${key}:${round}:${"v".repeat(round * 50)}`
        try {
          const reply = await call(first.secrets!, "POST", S, { cookie, body: { key, value } })
          if (reply.status === 200 || reply.status === 201) {
            acknowledged.push({ key, version: reply.body.version, value })
            if (acknowledged.length === Math.floor(total / 3)) killed = first.stop("SIGKILL")
          }
        } catch {
          failed++
        }
      }),
    )
    await Promise.all(writes)
    expect(killed, "the host was killed once a third of the writes were acknowledged").toBeDefined()
    expect(await killed).toBeNull()
    expect(first.child.signalCode).toBe("SIGKILL")
    // The kill cut writes off: some never got an answer.
    expect(failed).toBeGreaterThan(0)

    const second = await serve("secrets", store, env)
    const base = second.secrets!
    const again = await signIn(base, "ada@example.com")
    const list = (await call(base, "GET", S, { cookie: again })).body.secrets as Array<{ key: string; version: number }>
    const listed = new Map(list.map((s) => [s.key, s.version]))
    for (const { key } of acknowledged) expect(listed.has(key), key).toBe(true)
    for (const { key, version } of list) {
      const history = (await call(base, "GET", `${S}/${key}/versions`, { cookie: again })).body.versions as Array<{
        version: number
      }>
      const numbers = history.map((v) => v.version).sort((x, y) => x - y)
      expect(numbers, key).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1))
      expect(version, key).toBe(numbers.at(-1))
      let latest: string | undefined
      for (const n of numbers) {
        const opened = await call(base, "GET", `${S}/${key}/versions/${n}`, { cookie: again })
        expect(opened.status, `${key}@${n}`).toBe(200)
        expect(opened.body.secret.value, `${key}@${n}`).toMatch(new RegExp(`^${key}:\\d+:v*$`))
        latest = opened.body.secret.value
      }
      expect((await call(base, "GET", `${S}/${key}`, { cookie: again })).body.secret).toMatchObject({
        version,
        value: latest,
      })
    }
    for (const { key, version, value } of acknowledged) {
      const opened = await call(base, "GET", `${S}/${key}/versions/${version}`, { cookie: again })
      expect(opened.body.secret?.value, `${key}@${version}`).toBe(value)
    }
  }, 120_000)

  it("during a schemas cascade leaves all dependents or none on the base's stored content", async () => {
    const store = await makeStore()
    const first = await serve("schemas", store)
    let cookie = await signIn(first.schemas!, "root@example.com")
    const put = (base: string, key: string, content: unknown) =>
      call(base, "PUT", `/api/${key}`, { cookie, body: { content } })
    const platform = await call(first.schemas!, "POST", "/api/base", {
      cookie,
      body: { name: "base", versions: ["1.0.0"] },
    })
    expect(platform.status).toBe(201)
    expect((await put(first.schemas!, "base/1.0.0", { generation: 1 })).status).toBe(200)
    const dependents = Array.from({ length: 200 }, (_, i) => `dep-${i}`)
    await inBatches(dependents, 8, async (name) => {
      const created = await call(first.schemas!, "POST", `/api/${name}`, {
        cookie,
        body: { name, versions: ["1.0.0"] },
      })
      expect(created.status, name).toBe(201)
      expect((await put(first.schemas!, `${name}/1.0.0`, { "@extends": "base", own: name })).status, name).toBe(200)
    })

    // Rounds of: a whole cascade, timed on the running host, then another save of the base killed at a growing
    // fraction of that time, so that the kills land before, inside and around the commit; a restart after each.
    let host = first
    let generation = 1
    for (const fraction of [0.25, 0.5, 0.75, 1, 1.5]) {
      const started = performance.now()
      const whole = await put(host.schemas!, "base/1.0.0", { generation: generation + 1 })
      const duration = performance.now() - started
      expect(whole.status).toBe(200)
      expect(whole.body.reprocessed).toHaveLength(dependents.length)
      generation += 1

      let answered: number | undefined
      const saving = put(host.schemas!, "base/1.0.0", { generation: generation + 1 }).then(
        (reply) => {
          answered = reply.status
        },
        () => undefined,
      )
      await new Promise((resolve) => setTimeout(resolve, duration * fraction))
      await host.stop("SIGKILL")
      await saving

      host = await serve("schemas", store)
      cookie = await signIn(host.schemas!, "root@example.com")
      const stored = (await call(host.schemas!, "GET", "/api/base/1.0.0", { cookie })).body
      const kept = stored.content.generation as number
      expect([generation, generation + 1]).toContain(kept)
      if (answered === 200) expect(kept).toBe(generation + 1)
      expect(stored.output).toEqual({ generation: kept })
      const seen = new Map<number, number>()
      const base = host.schemas!
      await inBatches(dependents, 16, async (name) => {
        const reply = await call(base, "GET", `/api/${name}/1.0.0`, { cookie })
        expect(reply.status, name).toBe(200)
        expect(reply.body.output.own, name).toBe(name)
        const g = reply.body.output.generation as number
        seen.set(g, (seen.get(g) ?? 0) + 1)
      })
      expect(Object.fromEntries(seen), `killed at ${fraction} of ${Math.round(duration)} ms`).toEqual({
        [kept]: dependents.length,
      })
      generation = kept
    }
  }, 180_000)
})
