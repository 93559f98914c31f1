/**
 * What the hot-path benchmarks share: a load generator in this process (autocannon) against a host in a child
 * process, the same-run reference server, pgbench when it is installed, and the child's resident memory read from
 * `/proc` while the load runs. Each run is a few seconds: the figures are for comparing against the reference
 * measured moments before, on the same machine, not for absolute claims.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import autocannon from "autocannon"
import { onCoresApart } from "./cores.js"

export const CONNECTIONS = 32
export const DURATION_S = 3

export interface Load {
  readonly requestsPerSecond: number
  readonly p99Ms: number
  readonly errors: number
  /** Responses by status class, e.g. `{ "2xx": 1000 }`. */
  readonly statuses: Readonly<Record<string, number>>
  /** The child's largest resident set seen while the load ran, in MB. */
  readonly peakRssMb: number
  /**
   * CPU time of the child's main thread per answered request, in µs: on a shared machine the figure other load
   * moves least, since it counts the work a request costs rather than the time it waited for a core.
   */
  readonly cpuUsPerRequest: number
  /**
   * The share of the load's wall time the child's main thread spent on a core (0 to 1). A throughput is the
   * server's own only when this is near 1: a server left idle part of the time answered as fast as the load
   * generator asked, and its rate says how fast the generator was.
   */
  readonly busyShare: number
}

/** Clock ticks of one second (`getconf CLK_TCK`: 100 on Linux wherever this runs). */
const TICKS_PER_SECOND = 100

/** CPU time (user and system) of `pid`'s main thread in µs, from `/proc/<pid>/task/<pid>/stat` (Linux). */
export const mainThreadCpuUs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
  // utime and stime are the 14th and 15th fields of stat; the split above starts at the 3rd.
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / TICKS_PER_SECOND
}

/** The resident set of `pid` in MB, from `/proc/<pid>/status` (Linux). */
export const rssMb = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match ? Number(match[1]) / 1024 : Number.NaN
}

export interface LoadOptions {
  readonly url: string
  readonly method?: "GET" | "POST"
  readonly headers?: Record<string, string>
  /**
   * A body per request, for writes that spread over many keys; `context` is the connection's own (one request in
   * flight per connection), handed to `onResponse` with the answer to that request.
   */
  readonly body?: (context: Record<string, unknown>) => string
  readonly onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  readonly connections?: number
  readonly durationS?: number
  /** A fixed number of requests instead of a duration. */
  readonly amount?: number
  /** The server's process, whose memory is sampled while the load runs. */
  readonly pid?: number
  /**
   * The server (`pid`) on a core of its own and the load generator on the others while the load runs
   * (`./cores.ts`): for a server alone on the box, compared with a reference placed the same way (the token read).
   * Not for the secret paths, whose database shares the cores and whose targets are absolute rates.
   */
  readonly apart?: boolean
  /**
   * Seconds of the same load first, not counted: the server's JIT compiles its hot path before the figure is
   * taken, so a 3 s run measures the steady state rather than the warm-up. Reads only (writes would add versions).
   */
  readonly warmUpS?: number
}

export const runLoad = (options: LoadOptions): Promise<Load> =>
  options.apart === true ? onCoresApart(options.pid, () => loadOnce(options)) : loadOnce(options)

const loadOnce = async (options: LoadOptions): Promise<Load> => {
  const target = {
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers,
    connections: options.connections ?? CONNECTIONS,
  }
  if (options.warmUpS !== undefined && options.warmUpS > 0) await autocannon({ ...target, duration: options.warmUpS })
  let peak = options.pid === undefined ? Number.NaN : rssMb(options.pid)
  const sampler =
    options.pid === undefined
      ? undefined
      : setInterval(() => {
          peak = Math.max(peak, rssMb(options.pid!))
        }, 100)
  const { body, onResponse } = options
  const cpuBefore = options.pid === undefined ? Number.NaN : mainThreadCpuUs(options.pid)
  const began = performance.now()
  const result = await autocannon({
    ...target,
    ...(options.amount === undefined ? { duration: options.durationS ?? DURATION_S } : { amount: options.amount }),
    ...(body === undefined
      ? {}
      : {
          requests: [
            {
              setupRequest: (request, context) => ({ ...request, body: body(context as Record<string, unknown>) }),
              ...(onResponse === undefined
                ? {}
                : {
                    onResponse: (status: number, text: string, context: object) =>
                      onResponse(status, text, context as Record<string, unknown>),
                  }),
            },
          ],
        }),
  })
  if (sampler !== undefined) clearInterval(sampler)
  const cpuUs = options.pid === undefined ? Number.NaN : mainThreadCpuUs(options.pid) - cpuBefore
  const wallUs = (performance.now() - began) * 1_000
  const statuses: Record<string, number> = {}
  for (const kind of ["1xx", "2xx", "3xx", "4xx", "5xx"] as const) if (result[kind] > 0) statuses[kind] = result[kind]
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    statuses,
    peakRssMb: peak,
    cpuUsPerRequest: cpuUs / Math.max(1, result.requests.total),
    busyShare: cpuUs / wallUs,
  }
}

/** The middle value (the upper one of an even count). */
export const median = (values: ReadonlyArray<number>): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/**
 * How long each target of `alternating` is loaded, unrecorded, before its first burst. A host under the token read
 * was still compiling after one second: in its next two seconds its V8 worker threads took 17 µs per request on its
 * core, and its main thread 71 µs against 47–53 µs in every later burst (2026-11-27). One second made the first
 * round an outlier and widened the spread of the rounds; three leave only the steady state.
 */
const ALTERNATING_WARM_UP_S = 3

/**
 * Several targets loaded in alternating bursts of `burstS` seconds, `rounds` times, the order reversed every round,
 * after `ALTERNATING_WARM_UP_S` unrecorded seconds of each (their JIT's warm-up): whatever else the machine does
 * meanwhile falls on all of them alike, where one long run of each, one after the other, puts a slow minute on
 * whichever ran in it. Each target's loads, one per round, in round order.
 */
export const alternating = async (
  targets: ReadonlyArray<LoadOptions>,
  rounds: number,
  burstS: number,
): Promise<Array<Array<Load>>> => {
  for (const target of targets) await runLoad({ ...target, warmUpS: undefined, durationS: ALTERNATING_WARM_UP_S })
  const loads = targets.map((): Array<Load> => [])
  for (let round_ = 0; round_ < rounds; round_++) {
    const order = targets.map((_, index) => index)
    if (round_ % 2 === 1) order.reverse()
    for (const index of order)
      loads[index]!.push(await runLoad({ ...targets[index]!, warmUpS: undefined, durationS: burstS }))
  }
  return loads
}

/** One figure for a target's bursts: the medians of the rates, p99s and CPU, the statuses summed, the peak RSS. */
export const medianLoad = (loads: ReadonlyArray<Load>): Load => {
  const statuses: Record<string, number> = {}
  for (const load of loads)
    for (const [kind, count] of Object.entries(load.statuses)) statuses[kind] = (statuses[kind] ?? 0) + count
  return {
    requestsPerSecond: median(loads.map((load) => load.requestsPerSecond)),
    p99Ms: median(loads.map((load) => load.p99Ms)),
    errors: loads.reduce((sum, load) => sum + load.errors, 0),
    statuses,
    peakRssMb: Math.max(...loads.map((load) => load.peakRssMb)),
    cpuUsPerRequest: median(loads.map((load) => load.cpuUsPerRequest)),
    busyShare: median(loads.map((load) => load.busyShare)),
  }
}

export interface Reference {
  readonly url: string
  readonly child: ChildProcess
  readonly stop: () => void
}

/** Starts a reference server (`script`, beside this file) with `env`; resolves once it prints its URL. */
const startServer = (script: string, env: Record<string, string>): Promise<Reference> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, script)], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "inherit"],
    })
    child.once("exit", (code) => reject(new Error(`reference server ${script} exited with ${code}`)))
    child.stdout.on("data", (chunk: Buffer) => {
      const match = /reference listening on (\S+)/.exec(chunk.toString())
      if (match?.[1]) resolve({ url: match[1], child, stop: () => child.kill("SIGTERM") })
    })
  })

/**
 * Starts the reference server (`reference.mjs`) serving `body`, with its content type alone or, given `headers`, with
 * that header block as well; resolves with its URL and a stop.
 */
export const startReference = (body: Uint8Array, headers?: Readonly<Record<string, string>>): Promise<Reference> =>
  startServer("reference.mjs", {
    REFERENCE_BODY: Buffer.from(body).toString("base64"),
    ...(headers === undefined ? {} : { REFERENCE_HEADERS: JSON.stringify(headers) }),
  })

/** What the Postgres reference (`pgReference.mjs`) is given: the database, the statements and the fixed values. */
export interface PgReferenceOptions {
  readonly databaseUrl: string
  readonly statements: Readonly<Record<string, { readonly sql: string; readonly slots: ReadonlyArray<unknown> }>>
  readonly context: Readonly<Record<string, string>>
}

/** Starts the Postgres reference (`pgReference.mjs`): bare routes running the service's own statements. */
export const startPgReference = (options: PgReferenceOptions): Promise<Reference> =>
  startServer("pgReference.mjs", {
    REFERENCE_DATABASE_URL: options.databaseUrl,
    REFERENCE_STATEMENTS: JSON.stringify(options.statements),
    REFERENCE_CONTEXT: JSON.stringify(options.context),
  })

const exec = promisify(execFile)

/** Whether `pgbench` is on the path. */
export const hasPgbench = async (): Promise<boolean> =>
  exec("sh", ["-c", "command -v pgbench"]).then(
    () => true,
    () => false,
  )

/**
 * pgbench against a database of its own (`coffer_pgbench`, scale 1, created once): the select-only and the
 * simple-update scripts, 32 clients, 2 threads, a few seconds each. Transactions per second.
 */
export const pgbench = async (): Promise<{ selectOnly: number; simpleUpdate: number }> => {
  const common = ["-h", "127.0.0.1", "-U", "postgres"]
  await exec("psql", [...common, "-c", "CREATE DATABASE coffer_pgbench"]).catch(() => undefined)
  await exec("pgbench", [...common, "-i", "-q", "-s", "1", "coffer_pgbench"])
  const tps = async (script: string) => {
    const { stdout } = await exec("pgbench", [
      ...common,
      "-b",
      script,
      "-c",
      String(CONNECTIONS),
      "-j",
      "2",
      "-T",
      String(DURATION_S),
      "coffer_pgbench",
    ])
    return Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN)
  }
  return { selectOnly: await tps("select-only"), simpleUpdate: await tps("simple-update") }
}

export const perSecond = (value: number) => `${Math.round(value).toLocaleString("en-US")}/s`
export const round = (value: number, digits = 1) => value.toFixed(digits)
