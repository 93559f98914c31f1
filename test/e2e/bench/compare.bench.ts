/**
 * Two builds of the host side by side, for a change's before and after on a busy machine (`pnpm bench` lists it
 * as skipped unless `COFFER_COMPARE_BEFORE` is set): the workspace's build and another checkout's, built, each on
 * its own fresh database with the same setup, loaded in alternating bursts (the order swapped every round) so that
 * whatever else the machine does falls on both alike. Each path prints, per build, the median over the bursts of
 * the host main thread's CPU per request (the figure other load moves least) and of the requests per second.
 *
 *     COFFER_COMPARE_BEFORE=/path/to/other/checkout npx vitest bench --run --project unit test/e2e/bench/compare.bench.ts
 *
 * `COFFER_COMPARE_PATHS` picks paths (`token,poll,read,write`, all by default; `poll` is the token read with
 * `If-None-Match`, answered 304; `token-redis` is the token read with `COFFER_REDIS_URL`, run only when named),
 * `COFFER_COMPARE_ROUNDS` the bursts per
 * build (6), `COFFER_COMPARE_BURST_S` their length (2 s); both engines run, Postgres when reachable.
 * `COFFER_COMPARE_ENV_BEFORE` and `COFFER_COMPARE_ENV_AFTER` give either host settings of its own
 * (`NAME=value,NAME=value`): with `COFFER_COMPARE_BEFORE=.` that compares two settings of one build.
 */
import { join, resolve } from "node:path"
import { redisUrl } from "@coffer/contract"
import { bench, describe } from "vitest"
import type { Host } from "../src/host.js"
import { alternating, type Load, median, perSecond, round } from "./load/load.js"
import {
  auditedReadTarget,
  type Engine,
  pollTarget,
  postgres,
  secretsOwner,
  serve,
  sqlite,
  type Target,
  tokenReadTarget,
  writeTarget,
} from "./load/scenarios.js"

const before = process.env.COFFER_COMPARE_BEFORE
const paths = (process.env.COFFER_COMPARE_PATHS ?? "token,poll,read,write").split(",").map((path) => path.trim())
let hosts = 0
/** Redis for one build's host, on a key prefix of its own so that neither build sees the other's cache. */
const redis = () => ({ COFFER_REDIS_URL: redisUrl, COFFER_REDIS_PREFIX: `compare-${process.pid}-${++hosts}:` })
/** `NAME=value,NAME=value` as a host's environment. */
const settings = (raw: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (raw ?? "")
      .split(",")
      .filter((pair) => pair.includes("="))
      .map((pair) => [pair.slice(0, pair.indexOf("=")).trim(), pair.slice(pair.indexOf("=") + 1).trim()]),
  )
const envs = [settings(process.env.COFFER_COMPARE_ENV_BEFORE), settings(process.env.COFFER_COMPARE_ENV_AFTER)]
const rounds = Number(process.env.COFFER_COMPARE_ROUNDS ?? 6)
const burstS = Number(process.env.COFFER_COMPARE_BURST_S ?? 2)

type Path = "token" | "token-redis" | "poll" | "read" | "write"

/** One build's host on its own database, set up for `path`. */
const prepare = async (
  path: Path,
  engine: Engine,
  env: Record<string, string>,
  bin?: string,
): Promise<{ host: Host; target: Target }> => {
  const schemas = path === "token" || path === "token-redis" || path === "poll"
  const host = await serve(
    engine,
    schemas ? "schemas" : "secrets",
    { ...(path === "token-redis" ? redis() : {}), ...env },
    bin,
  )
  if (schemas) {
    const read = await tokenReadTarget(host.schemas!, "compare")
    return { host, target: path === "poll" ? await pollTarget(read) : read }
  }
  const base = host.secrets!
  const owner = await secretsOwner(base)
  return { host, target: path === "read" ? await auditedReadTarget(base, owner.call) : writeTarget(base, owner.cookie) }
}

const summary = (label: string, loads: ReadonlyArray<Load>) =>
  `${label}: main thread ${Math.round(median(loads.map((load) => load.cpuUsPerRequest)))} µs CPU per request, ` +
  `${perSecond(median(loads.map((load) => load.requestsPerSecond)))}, ` +
  `statuses ${JSON.stringify(loads.map((load) => load.statuses))}`

const describeEnv = (env: Record<string, string>) =>
  Object.keys(env).length === 0
    ? ""
    : `, ${Object.entries(env)
        .map(([name, value]) => `${name}=${value}`)
        .join(" ")}`

const compare = async (path: Path, makeEngine: () => Promise<Engine | undefined>) => {
  const engines = [await makeEngine(), await makeEngine()]
  if (engines[0] === undefined || engines[1] === undefined) return
  const builds = [
    await prepare(path, engines[0], envs[0]!, join(resolve(before!), "hosts/node/dist/bin.js")),
    await prepare(path, engines[1], envs[1]!),
  ]
  try {
    const loads = await alternating(
      builds.map(({ host, target }) => ({ ...target, pid: host.child.pid! })),
      rounds,
      burstS,
    )
    const cpu = (loads_: ReadonlyArray<Load>) => median(loads_.map((load) => load.cpuUsPerRequest))
    console.log(
      [
        `[${path} on ${engines[1].name}] ${rounds} bursts of ${burstS} s per build, alternating`,
        `  ${summary(`before (${before}${describeEnv(envs[0]!)})`, loads[0]!)}`,
        `  ${summary(`after (this workspace${describeEnv(envs[1]!)})`, loads[1]!)}`,
        `  CPU per request after / before: ${round(cpu(loads[1]!) / cpu(loads[0]!), 2)}`,
      ].join("\n"),
    )
  } finally {
    for (const { host } of builds) await host.stop("SIGKILL")
    for (const engine of engines) await engine?.cleanup()
  }
}

const options = { time: 0, iterations: 1, warmupIterations: 0, warmupTime: 0 }

/** Each comparison runs once however often the bench runner calls it (as in `hotPaths.bench.ts`). */
const once = (comparison: () => Promise<void>) => {
  let ran: Promise<void> | undefined
  return () => {
    ran ??= comparison()
    return ran
  }
}

describe.skipIf(before === undefined)(
  "two builds compared (set COFFER_COMPARE_BEFORE to another built checkout)",
  () => {
    for (const path of ["token", "token-redis", "poll", "read", "write"] as const) {
      if (!paths.includes(path)) continue
      bench(
        `${path}, SQLite`,
        once(() => compare(path, sqlite)),
        options,
      )
      if (path === "read" || path === "write")
        bench(
          `${path}, Postgres`,
          once(() => compare(path, postgres)),
          options,
        )
    }
  },
)
