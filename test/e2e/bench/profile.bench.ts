/**
 * A CPU profile of the host under one hot path's load (`pnpm bench` lists it as skipped unless `COFFER_PROFILE`
 * names a path): the built host started with `--cpu-prof`, set up and loaded as in `compare.bench.ts`, stopped,
 * and the functions that took the most of its main thread printed by self time, with their file.
 *
 *     COFFER_PROFILE=token|token-redis|poll|read|write|export [COFFER_PROFILE_ENGINE=sqlite|postgres] npx vitest bench --run --project unit test/e2e/bench/profile.bench.ts
 *
 * The `.cpuprofile` is kept (its path is printed) for Chrome's DevTools.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { redisUrl } from "@coffer/contract"
import { bench, describe } from "vitest"
import { runLoad } from "./load/load.js"
import {
  auditedReadTarget,
  exportTarget,
  fill,
  pollTarget,
  postgres,
  secretsOwner,
  serve,
  sqlite,
  tokenReadTarget,
  writeTarget,
} from "./load/scenarios.js"

const path = process.env.COFFER_PROFILE
const engineName = process.env.COFFER_PROFILE_ENGINE ?? "sqlite"
const seconds = Number(process.env.COFFER_PROFILE_S ?? 5)
const top = Number(process.env.COFFER_PROFILE_TOP ?? 40)

interface ProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const shortFile = (url: string) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "")
    .replace(/.*\/work\/[^/]+\//, "")

/** Self time per function, and per file, as shares of the busy (non-idle) samples. */
const summarize = (profile: Profile) => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map<string, number>()
  const files = new Map<string, number>()
  let busy = 0
  for (const id of profile.samples) {
    const node = byId.get(id)!
    const name = node.callFrame.functionName || "(anonymous)"
    if (name === "(idle)" || name === "(program)") continue
    busy++
    const file = shortFile(node.callFrame.url) || "(native)"
    const key = `${name} ${file}:${node.callFrame.lineNumber + 1}`
    self.set(key, (self.get(key) ?? 0) + 1)
    const group = file
      .split("/")
      .slice(0, file.startsWith("@") ? 2 : 1)
      .join("/")
    files.set(group, (files.get(group) ?? 0) + 1)
  }
  const share = (count: number) => `${((100 * count) / busy).toFixed(1).padStart(5)}%`
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top)
  return [
    `busy samples: ${busy} of ${profile.samples.length}`,
    "self time by package:",
    ...sorted(files).map(([name, count]) => `  ${share(count)} ${name}`),
    "self time by function:",
    ...sorted(self).map(([name, count]) => `  ${share(count)} ${name}`),
  ].join("\n")
}

describe.skipIf(path === undefined)("a CPU profile of the host under load (set COFFER_PROFILE)", () => {
  bench(
    `${path ?? "a hot path"} on ${engineName}`,
    async () => {
      const engine = engineName === "postgres" ? await postgres() : await sqlite()
      if (engine === undefined) throw new Error("Postgres is not reachable")
      const dir = mkdtempSync(join(tmpdir(), "coffer-profile-"))
      const schemas = path === "token" || path === "token-redis" || path === "poll"
      const env: Record<string, string> =
        path === "token-redis" ? { COFFER_REDIS_URL: redisUrl, COFFER_REDIS_PREFIX: `profile-${process.pid}:` } : {}
      const host = await serve(engine, schemas ? "schemas" : "secrets", env, undefined, [
        "--cpu-prof",
        `--cpu-prof-dir=${dir}`,
      ])
      try {
        const target = schemas
          ? await tokenReadTarget(host.schemas!, "profile").then((read) => (path === "poll" ? pollTarget(read) : read))
          : await (async () => {
              const owner = await secretsOwner(host.secrets!)
              if (path === "read") return auditedReadTarget(host.secrets!, owner.call)
              if (path === "write") return writeTarget(host.secrets!, owner.cookie)
              // One `.env` export of 10,000 secrets at a time, as `hotPaths.bench.ts` times it.
              await fill(host.secrets!, owner.cookie, "production", 10_000)
              return { ...exportTarget(host.secrets!, owner.cookie, "production"), connections: 1 }
            })()
        // The warm-up sends the target without its bodies: reads only, or the writes' profile would hold
        // bodiless POSTs.
        const warmUpS = path === "write" ? 0 : 1
        const load = await runLoad({ ...target, pid: host.child.pid!, durationS: seconds, warmUpS })
        console.log(
          `${path}: ${Math.round(load.requestsPerSecond)}/s, ${Math.round(load.cpuUsPerRequest)} µs CPU/req, ${JSON.stringify(load.statuses)}`,
        )
      } finally {
        await host.stop("SIGTERM")
        await engine.cleanup()
      }
      const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"))
      if (file === undefined) throw new Error(`no profile written in ${dir}`)
      console.log(`${join(dir, file)}\n${summarize(JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile)}`)
    },
    { time: 0, iterations: 1, warmupIterations: 0, warmupTime: 0 },
  )
})
