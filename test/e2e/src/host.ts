/**
 * Starts the built Node host as an operator would (`coffer serve` in a child process, on free ports) and
 * reads the "listening on" lines to find it. End-to-end tests speak HTTP to what this returns.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const bin = resolve(import.meta.dirname, "../../../hosts/node/dist/bin.js")

export interface Host {
  readonly schemas: string | undefined
  readonly secrets: string | undefined
  readonly child: ChildProcess
  /** Everything the process printed so far, both streams. */
  readonly output: () => string
  /** SIGTERM, then wait for the exit; resolves with the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

export interface StartOptions {
  readonly env?: Readonly<Record<string, string>>
  readonly args?: ReadonlyArray<string>
  /** Working directory; a fresh temporary one by default, so `.coffer/` files do not leak between tests. */
  readonly cwd?: string
  readonly timeoutMs?: number
}

const listeningLine = /^coffer (schemas|secrets) listening on (http:\/\/\S+)$/m

export const freshDirectory = () => mkdtempSync(join(tmpdir(), "coffer-e2e-"))

/** Runs `coffer <args>` to completion: exit code and output. */
export const run = (
  args: ReadonlyArray<string>,
  options: { env?: Readonly<Record<string, string>>; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
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
    child.on("exit", (code) => done({ code, stdout, stderr }))
  })

export const start = (options: StartOptions = {}): Promise<Host> => {
  const args = options.args ?? ["serve"]
  const expected = args.includes("--only") ? 1 : 2
  const child = spawn(process.execPath, [bin, ...args], {
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
      reject(new Error(`host did not start within ${options.timeoutMs ?? 15_000} ms:\n${output}`))
    }, options.timeoutMs ?? 15_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      for (const line of output.split("\n")) {
        const match = listeningLine.exec(line)
        if (match?.[1] && match[2]) urls[match[1]] = match[2]
      }
      if (Object.keys(urls).length === expected) {
        clearTimeout(timer)
        resolve({
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
      reject(new Error(`host exited with ${code} before listening:\n${output}`))
    })
  })
}
