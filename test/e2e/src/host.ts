/**
 * Starts a built host as an operator would (`coffer serve` in a child process, on free ports) and reads the
 * "listening on" lines to find it. End-to-end tests speak HTTP to what this returns.
 *
 * Two hosts run the same command: `node` (`hosts/node/dist/bin.js` on Node) and `bun` (`hosts/bun/dist/bin.js`
 * on the Bun that `@coffer/bun` installs from npm). `COFFER_E2E_HOST=node|bun|both` picks the ones `hosts`
 * lists; by default both when the Bun binary is installed, Node alone otherwise. Suites run per host with
 * `describe.each(hosts)` and pass the host to `start` and `run`, which default to Node.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

export type HostName = "node" | "bun"

const root = resolve(import.meta.dirname, "../../..")

/** The Node host's command, kept under its old name for suites written before there were two hosts. */
export const bin = join(root, "hosts/node/dist/bin.js")

export const bins: Readonly<Record<HostName, string>> = {
  node: bin,
  bun: join(root, "hosts/bun/dist/bin.js"),
}

/**
 * The Bun executable the `bun` npm package installed. Spawned directly: the `node_modules/.bin/bun` shim is a
 * shell script that does not `exec`, so a signal sent to it would never reach Bun.
 */
const bunExecutable = (): string | undefined => {
  const shim = join(root, "hosts/bun/node_modules/.bin/bun")
  const manifestFile = join(root, "hosts/bun/node_modules/bun/package.json")
  if (!existsSync(shim) || !existsSync(manifestFile)) return undefined
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { bin?: Record<string, string> }
  const executable = manifest.bin?.bun && join(dirname(realpathSync(manifestFile)), manifest.bin.bun)
  return executable && existsSync(executable) ? executable : undefined
}

export const bunPath = bunExecutable()

/** The hosts the suites run against, from `COFFER_E2E_HOST`; an unusable choice fails the run, never narrows it. */
export const hosts: ReadonlyArray<HostName> = (() => {
  const chosen = process.env.COFFER_E2E_HOST ?? (bunPath === undefined ? "node" : "both")
  const picked: ReadonlyArray<HostName> | undefined =
    chosen === "both" ? ["node", "bun"] : chosen === "node" || chosen === "bun" ? [chosen] : undefined
  if (picked === undefined) throw new Error(`COFFER_E2E_HOST: expected node, bun or both, got "${chosen}"`)
  if (picked.includes("bun") && bunPath === undefined) {
    throw new Error("COFFER_E2E_HOST asks for the Bun host, but hosts/bun/node_modules/.bin/bun is missing")
  }
  return picked
})()

/**
 * The host a suite gets when it names none: the only chosen host when one is chosen (the vitest projects
 * `e2e-node` and `e2e-bun` each choose one, so every e2e file runs once per host), else Node.
 */
export const defaultHost: HostName = hosts.length === 1 ? hosts[0]! : "node"

/**
 * What a host cannot do, by capability name, with the reason. A test that needs a capability is switched off by
 * that name where it is missing, `it.skipIf(lacks(host, "name") !== undefined)(…)`, so the run lists it as
 * skipped and the reason is written here, never a silent skip. Empty today: every suite passes on both hosts.
 */
const lacking: Readonly<Record<HostName, Readonly<Record<string, string>>>> = { node: {}, bun: {} }

/** Why `host` lacks `capability`, or `undefined` when it has it. */
export const lacks = (host: HostName, capability: string): string | undefined => lacking[host][capability]

/** The program and arguments that run `coffer <args>` on a host, from `file` (the workspace's build by default). */
const command = (
  host: HostName,
  args: ReadonlyArray<string>,
  file = bins[host],
  nodeArgs: ReadonlyArray<string> = [],
): [string, Array<string>] => {
  // A missing build would otherwise surface as a module-not-found trace from the child.
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`pnpm build\` first`)
  if (host === "node") return [process.execPath, [...nodeArgs, file, ...args]]
  if (bunPath === undefined) throw new Error("the Bun host needs hosts/bun/node_modules/.bin/bun")
  return [bunPath, [file, ...args]]
}

export interface Host {
  readonly host: HostName
  readonly schemas: string | undefined
  readonly secrets: string | undefined
  readonly child: ChildProcess
  /** Everything the process printed so far, both streams (until it listened, with `keepOutput: false`). */
  readonly output: () => string
  /** SIGTERM, then wait for the exit; resolves with the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

export interface StartOptions {
  /** Which host runs the command; `node` by default. */
  readonly host?: HostName
  /** The command's file; the workspace's build of the host by default (the packed-install test runs an installed one). */
  readonly bin?: string
  readonly env?: Readonly<Record<string, string>>
  readonly args?: ReadonlyArray<string>
  /** Working directory; a fresh temporary one by default, so `.coffer/` files do not leak between tests. */
  readonly cwd?: string
  readonly timeoutMs?: number
  /** Options for Node itself, before the command's file (`--cpu-prof`, which `NODE_OPTIONS` refuses); Node only. */
  readonly nodeArgs?: ReadonlyArray<string>
  /**
   * Whether what the host prints after it listens is kept for `output()` (yes by default). Benchmarks say no: a
   * host under load prints a line per request, and keeping them all would make the load generator, in this
   * process, grow a string of hundreds of megabytes while it measures. The lines are still read and dropped.
   */
  readonly keepOutput?: boolean
}

const listeningLine = /^coffer (schemas|secrets) listening on (http:\/\/\S+)$/m

export const freshDirectory = () => mkdtempSync(join(tmpdir(), "coffer-e2e-"))

/** Runs `coffer <args>` to completion: exit code and output. */
export const run = (
  args: ReadonlyArray<string>,
  options: { host?: HostName; env?: Readonly<Record<string, string>>; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const [file, argv] = command(options.host ?? defaultHost, args)
    const child = spawn(file, argv, {
      cwd: options.cwd ?? freshDirectory(),
      env: { PATH: process.env.PATH ?? "", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    // `close`, not `exit`: a process can exit before its output has been read from the pipes.
    child.on("close", (code) => done({ code, stdout, stderr }))
  })

// `async`: a missing build is a rejection like any other failure to start.
export const start = async (options: StartOptions = {}): Promise<Host> => {
  const host = options.host ?? defaultHost
  const args = options.args ?? ["serve"]
  const expected = args.includes("--only") ? 1 : 2
  const [file, argv] = command(host, args, options.bin, options.nodeArgs)
  const child = spawn(file, argv, {
    cwd: options.cwd ?? freshDirectory(),
    env: {
      PATH: process.env.PATH ?? "",
      COFFER_ENV: "development",
      COFFER_SCHEMAS_PORT: "0",
      COFFER_SECRETS_PORT: "0",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  const urls: Record<string, string> = {}
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${host} host did not start within ${options.timeoutMs ?? 15_000} ms:\n${output}`))
    }, options.timeoutMs ?? 15_000)
    // Only the lines that arrived since the last chunk are scanned, and only until the host listens: a host under
    // load prints a line per request, and rescanning everything it printed would starve the load generator.
    let scanned = 0
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (scanned < 0) return
      const end = output.lastIndexOf("\n") + 1
      for (const line of output.slice(scanned, end).split("\n")) {
        const match = listeningLine.exec(line)
        if (match?.[1] && match[2]) urls[match[1]] = match[2]
      }
      scanned = end
      if (Object.keys(urls).length === expected) {
        scanned = -1
        if (options.keepOutput === false) {
          child.stdout.off("data", onData).resume()
          child.stderr.off("data", onData).resume()
        }
        clearTimeout(timer)
        resolve({
          host,
          schemas: urls.schemas,
          secrets: urls.secrets,
          child,
          output: () => output,
          stop: (signal = "SIGTERM") => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal)
            return exited
          },
        })
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${host} host exited with ${code} before listening:\n${output}`))
    })
  })
}
