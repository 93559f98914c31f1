/**
 * The schemas cascade at scale (`pnpm bench`), on the real Node host in this process, over HTTP, on SQLite and on
 * Postgres: a base schema with 1,000 and with 10,000 direct dependents plus a chain 100 deep below the first, the
 * save of the base timed over HTTP (targets: 10,000 in at most 1 s on SQLite and 2 s on Postgres, growing at most
 * 11× from 1,000 to 10,000), and the latency of token reads made on the same process while the cascade runs
 * (target: p99 under 50 ms). Then the version-list figures of one platform with 10,000 versions.
 *
 * The graph is seeded straight into the store's tables in bulk (building 10,000 dependents through the API takes
 * minutes and is not what is measured); every save, read and version list goes through HTTP. The figures are
 * printed after each scenario, with the targets beside them.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlDatabase } from "@coffer/adapter-sql"
import { createPostgresDatabase, hasPostgres, type PostgresDatabase } from "@coffer/contract"
import { databaseLayer, loadSettings, type Running, serve } from "@coffer/node"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { bench, describe } from "vitest"

const CHAIN = 100
const MASTER_KEY = Buffer.alloc(32, 7).toString("base64")

interface Engine {
  readonly name: "SQLite" | "Postgres"
  readonly url: string
  readonly targetMs: number
  readonly cleanup: () => Promise<void>
}

interface Scenario {
  readonly running: Running
  readonly base: string
  readonly cookie: string
  readonly token: string
  readonly dependents: number
  readonly saves: Array<number>
  readonly reads: Array<number>
}

const figures = new Map<string, { saves: Array<number>; reads: Array<number> }>()

const percentile = (values: ReadonlyArray<number>, p: number) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}
const median = (values: ReadonlyArray<number>) => percentile(values, 50)
const ms = (value: number) => `${value.toFixed(1)} ms`

const now = () => new Date().toISOString()
const EMPTY = ["content", "dependencies", "output", "sources", "saved_at", "saved_by"]

/** Rows for `schemas_versions`: one version `1.0.0` per platform, its content, output and edges. */
const seed = async (url: string, dependents: number) => {
  const settings = loadSettings({ COFFER_ENV: "development", COFFER_MASTER_KEY: MASTER_KEY, COFFER_DATABASE_URL: url })
  const runtime = ManagedRuntime.make(databaseLayer(settings))
  const at = now()
  const platforms: Array<{ name: string; kind: null; created_at: string }> = []
  const versions: Array<Record<string, string | null>> = []
  const edges: Array<Record<string, string | number>> = []
  const add = (name: string, content: Record<string, unknown>, output: Record<string, unknown>, sources: string[]) => {
    platforms.push({ name, kind: null, created_at: at })
    const extendsOf = content["@extends"]
    const dependencies = extendsOf === undefined ? [] : [extendsOf as string]
    versions.push({
      platform: name,
      version: "1.0.0",
      created_at: at,
      content: JSON.stringify(content),
      dependencies: JSON.stringify(dependencies),
      output: JSON.stringify(output),
      sources: JSON.stringify(sources),
      saved_at: at,
      saved_by: "seed@example.com",
    })
    for (const [position, reference] of dependencies.entries()) {
      edges.push({
        dependent_platform: name,
        dependent_version: "1.0.0",
        position,
        platform: reference.split("/")[0]!,
        reference,
      })
    }
  }
  add("base", { v: 0, shared: { a: 1 } }, { v: 0, shared: { a: 1 } }, ["base"])
  for (let i = 0; i < dependents; i++) {
    add(`d${i}`, { "@extends": "base/^1.0.0", i }, { v: 0, shared: { a: 1 }, i }, ["base", `d${i}`])
  }
  for (let j = 0; j < CHAIN; j++) {
    const parent = j === 0 ? "d0/1.0.0" : `c${j - 1}/1.0.0`
    add(`c${j}`, { "@extends": parent, [`c${j}`]: j }, {}, [])
  }
  // What the token reads during a cascade: a schema the cascade does not touch.
  add("other", { small: true }, { small: true }, ["other"])
  // 9,999 versions on one platform, for the version-list figures; adding one reaches the limit, 10,000.
  platforms.push({ name: "many", kind: null, created_at: at })
  for (let v = 0; v < 9_999; v++) {
    const version = `${v % 100}.${Math.floor(v / 100)}.0`
    versions.push({ platform: "many", version, created_at: at, ...Object.fromEntries(EMPTY.map((c) => [c, null])) })
  }
  const insert = (table: "schemas_platforms" | "schemas_versions" | "schemas_dependencies", rows: Array<object>) =>
    Effect.gen(function* () {
      for (let start = 0; start < rows.length; start += 300) {
        const chunk = rows.slice(start, start + 300)
        yield* SqlDatabase.query((db) =>
          db
            .insertInto(table)
            .values(chunk as never)
            .execute(),
        )
      }
    })
  await runtime.runPromise(
    SqlDatabase.withTransaction(
      Effect.gen(function* () {
        yield* insert("schemas_platforms", platforms)
        yield* insert("schemas_versions", versions)
        yield* insert("schemas_dependencies", edges)
      }),
    ) as Effect.Effect<void, unknown, SqlDatabase.SqlDatabase>,
  )
  await runtime.dispose()
}

const start = async (engine: Engine, dependents: number): Promise<Scenario> => {
  const settings = loadSettings({
    COFFER_ENV: "development",
    COFFER_MASTER_KEY: MASTER_KEY,
    COFFER_DATABASE_URL: engine.url,
    COFFER_SCHEMAS_PORT: "0",
    // The host runs in this process: a line per request (about 14,000) would be printed between the figures.
    COFFER_LOG_LEVEL: "warn",
  })
  const running = await serve({ settings, services: ["schemas"], env: {}, log: () => {} })
  await seed(engine.url, dependents)
  const base = running.listening.schemas!.url.replace(/\/$/, "")
  const login = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com" }),
  })
  const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!
  const created = await fetch(`${base}/api/_ui/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ name: "bench" }),
  })
  const { token } = (await created.json()) as { token: string }
  const scenario = { running, base, cookie, token, dependents, saves: [], reads: [] }
  // Warm the read path: token check, cache generation and the schema read under the token.
  await read(scenario)
  return scenario
}

const read = async (scenario: Scenario): Promise<number> => {
  const began = performance.now()
  const response = await fetch(`${scenario.base}/api/other/1.0.0`, {
    headers: { authorization: `Bearer ${scenario.token}` },
  })
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`token read answered ${response.status}`)
  return performance.now() - began
}

let round = 0

/** One save of the base over HTTP, with token reads on the same process for as long as it runs. */
const saveBase = async (scenario: Scenario) => {
  let saving = true
  const reads = (async () => {
    const latencies: Array<number> = []
    while (saving) latencies.push(await read(scenario))
    return latencies
  })()
  const began = performance.now()
  const response = await fetch(`${scenario.base}/api/base/1.0.0`, {
    method: "PUT",
    headers: { "content-type": "application/json", cookie: scenario.cookie },
    body: JSON.stringify({ content: { v: ++round, shared: { a: round } } }),
  })
  const body = (await response.json()) as { reprocessed?: ReadonlyArray<string>; error?: string }
  const elapsed = performance.now() - began
  saving = false
  const latencies = await reads
  const expected = scenario.dependents + CHAIN
  if (body.reprocessed?.length !== expected) {
    throw new Error(`expected ${expected} re-processed, got ${body.reprocessed?.length} (${body.error ?? ""})`)
  }
  scenario.saves.push(elapsed)
  scenario.reads.push(...latencies)
}

/** GET /api/schemas, GET /api/many/versions and POST /api/many/versions, the 10,000th version. */
const versionFigures = async (scenario: Scenario) => {
  const timed = async (method: string, path: string, body?: unknown) => {
    const began = performance.now()
    const response = await fetch(`${scenario.base}${path}`, {
      method,
      headers: { "content-type": "application/json", cookie: scenario.cookie },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    await response.arrayBuffer()
    if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}`)
    return performance.now() - began
  }
  const runs = { list: [] as number[], versions: [] as number[], add: [] as number[] }
  for (let i = 0; i < 5; i++) {
    runs.list.push(await timed("GET", "/api/schemas"))
    runs.versions.push(await timed("GET", "/api/many/versions"))
  }
  runs.add.push(await timed("POST", "/api/many/versions", { version: "100.0.0" }))
  return runs
}

const report = async (engine: Engine, scenario: Scenario) => {
  const key = `${engine.name} ${scenario.dependents}`
  figures.set(key, { saves: scenario.saves, reads: scenario.reads })
  const lines = [
    `[cascade] ${key} dependents + chain ${CHAIN}: save median ${ms(median(scenario.saves))} ` +
      `(min ${ms(Math.min(...scenario.saves))}, ${scenario.saves.length} saves)` +
      (scenario.dependents === 10_000 ? `; target ≤ ${engine.targetMs} ms` : ""),
    `[cascade] ${key}: token reads during the cascades: ${scenario.reads.length}, ` +
      `p50 ${ms(percentile(scenario.reads, 50))}, p99 ${ms(percentile(scenario.reads, 99))}, ` +
      `max ${ms(Math.max(...scenario.reads))}; target p99 < 50 ms`,
  ]
  const small = figures.get(`${engine.name} 1000`)
  if (scenario.dependents === 10_000 && small !== undefined) {
    const growth = median(scenario.saves) / median(small.saves)
    lines.push(`[cascade] ${engine.name} growth 1,000 → 10,000: ${growth.toFixed(2)}× (target ≤ 11×)`)
    const versions = await versionFigures(scenario)
    lines.push(
      `[versions] ${engine.name}, 10,000 versions: GET /api/schemas median ${ms(median(versions.list))}, ` +
        `GET /api/many/versions median ${ms(median(versions.versions))}, POST /api/many/versions ${ms(versions.add[0]!)}`,
    )
  }
  console.log(lines.join("\n"))
}

/** Teardowns still running: the last benchmark waits for them, or the worker could end before they print. */
const pending: Array<Promise<void>> = []

const engines: Array<() => Promise<Engine | undefined>> = [
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "coffer-bench-"))
    return {
      name: "SQLite",
      url: `sqlite:${join(dir, "bench.db")}`,
      targetMs: 1_000,
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    }
  },
  async () => {
    if (!(await hasPostgres())) return undefined
    const database: PostgresDatabase = await createPostgresDatabase("bench")
    return { name: "Postgres", url: database.url, targetMs: 2_000, cleanup: database.drop }
  },
]

for (const [index, makeEngine] of engines.entries()) {
  describe(`cascade over HTTP on ${index === 0 ? "SQLite" : "Postgres"}`, () => {
    for (const dependents of [1_000, 10_000]) {
      let prepared: Promise<{ engine: Engine; scenario: Scenario } | undefined> | undefined
      const prepare = () => {
        prepared ??= (async () => {
          const engine = await makeEngine()
          if (engine === undefined) return undefined
          return { engine, scenario: await start(engine, dependents) }
        })()
        return prepared
      }
      bench(
        `save a base with ${dependents.toLocaleString("en-US")} dependents + a chain of ${CHAIN}`,
        async () => {
          const ready = await prepare()
          if (ready !== undefined) await saveBase(ready.scenario)
        },
        {
          time: 0,
          iterations: dependents === 10_000 ? 4 : 8,
          warmupIterations: 1,
          setup: async (_task, mode) => {
            if (mode !== "run") return
            const ready = await prepare()
            // Figures count the measured saves only, not the warm-up.
            ready?.scenario.saves.splice(0)
            ready?.scenario.reads.splice(0)
          },
          teardown: (_task, mode) => {
            if (mode !== "run") return
            const done = (async () => {
              const ready = await prepare()
              if (ready === undefined) return
              await report(ready.engine, ready.scenario)
              await ready.scenario.running.close(0)
              await ready.engine.cleanup()
            })()
            pending.push(done)
            return done
          },
        },
      )
    }
  })
}

describe("cascade figures", () => {
  bench("every scenario reported and closed", () => Promise.all(pending).then(() => undefined), {
    time: 0,
    iterations: 1,
    warmupIterations: 0,
  })
})
