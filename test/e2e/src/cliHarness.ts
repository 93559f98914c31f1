/**
 * What the end-to-end suites of the `coffer` user commands share: running the built command (`@coffer/cli`'s
 * standalone bin, or the server's `coffer`) as a user or CI job would, on a pseudo-terminal when asked; a built
 * host on a SQLite file of its own; a project with a write key and a read key; values that are hard to carry.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { join, resolve } from "node:path"
import { expect } from "vitest"
import { freshDirectory, type Host, bin as serverBin, start } from "./host.js"

const root = resolve(import.meta.dirname, "../../..")
export const cliBin = join(root, "hosts/cli/dist/bin.js")

const running: Array<Host> = []

/** Stops every host the current test started; each suite calls it after each test. */
export const stopHosts = async () => {
  await Promise.all(running.splice(0).map((host) => host.stop("SIGKILL")))
}

export interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs `coffer <args>` (the standalone package unless `server` is set) with `env` on top of a bare one. `signal`
 * ends a run that does not end by itself (`secrets run --watch`) with SIGTERM, which it passes on to its command.
 */
export const coffer = (
  args: ReadonlyArray<string>,
  options: { env?: Record<string, string>; cwd?: string; stdin?: string; server?: boolean; signal?: AbortSignal } = {},
): Promise<Outcome> =>
  new Promise((done) => {
    const child = spawn(process.execPath, [options.server ? serverBin : cliBin, ...args], {
      cwd: options.cwd ?? freshDirectory(),
      env: { PATH: process.env.PATH ?? "", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
      signal: options.signal,
      killSignal: "SIGTERM",
    })
    // An aborted run reports an AbortError beside its `close`; the outcome is the `close`.
    child.on("error", () => {})
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    child.stdin.end(options.stdin ?? "")
    // `close`, not `exit`: a process can exit before its output has been read from the pipes.
    child.on("close", (code) => done({ code, stdout, stderr }))
  })

const masterKey = () => randomBytes(32).toString("base64")

/** A host on a SQLite file of its own; `restart` serves the same database again, on new ports. */
export const serve = async (database = join(freshDirectory(), "coffer.db"), key = masterKey()) => {
  const host = await start({ env: { COFFER_DATABASE_URL: `sqlite:${database}`, COFFER_MASTER_KEY: key } })
  running.push(host)
  return { host, secrets: host.secrets!, schemas: host.schemas!, restart: () => serve(database, key) }
}

export const call = async (
  base: string,
  method: string,
  path: string,
  options: { cookie?: string; body?: unknown } = {},
) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

export const devLogin = async (base: string, email: string, groups?: ReadonlyArray<string>) => {
  const response = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(groups === undefined ? { email } : { email, groups }),
  })
  expect(response.status).toBe(200)
  return response.headers.getSetCookie()[0]!.split(";")[0]!
}

/** A project `app` owned by ada, with a write key and a read key; the environment a CLI run starts from. */
export const project = async (secrets: string) => {
  const cookie = await devLogin(secrets, "ada@example.com")
  expect((await call(secrets, "POST", "/api/projects", { cookie, body: { name: "App" } })).status).toBe(201)
  const key = async (scope: string) =>
    (await call(secrets, "POST", "/api/api-keys", { cookie, body: { name: scope, projectSlug: "app", scope } })).body
  const write = await key("write")
  const read = await key("read")
  const home = freshDirectory()
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    COFFER_URL: secrets,
    COFFER_TOKEN: write.key as string,
    COFFER_ENVIRONMENT: "development",
  }
  return { cookie, writeKey: write as { id: string; key: string }, readKey: read.key as string, env }
}

export const corpus: Record<string, string> = {
  PLAIN: "abc_./:@%+,=-123",
  EMPTY: "",
  SPACES: "  two  spaces  ",
  HASH: "a # not a comment",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, which nothing may perform.
  DOLLAR: "$HOME and ${PATH} and $(whoami)",
  DOUBLE: 'say "hi"',
  SINGLE: "it's here",
  BACKSLASH: "C:\\path\\to",
  MULTILINE: "line one\nline two\n",
  UNICODE: "ünïcødé ✓",
  HARD: `it's $HOME "quoted" \\ \`x\``,
}

export const setAll = async (
  env: Record<string, string>,
  values: Record<string, string>,
  environment = "development",
) => {
  for (const [key, value] of Object.entries(values)) {
    const set = await coffer(["secrets", "set", "--env", environment, key], { env, stdin: `${value}\n` })
    expect(set.code, set.stderr).toBe(0)
  }
}

export const printEnv = (keys: ReadonlyArray<string>) => [
  process.execPath,
  "-e",
  `process.stdout.write(JSON.stringify(Object.fromEntries(${JSON.stringify(keys)}.map((k) => [k, process.env[k]]))))`,
]

/**
 * Runs `coffer <args>` on a pseudo-terminal (util-linux `script`), typing `typed` once `waitFor` is shown, after
 * `meanwhile` (what someone else does while the question waits) has finished.
 */
export const onTerminal = (
  args: ReadonlyArray<string>,
  options: {
    env: Record<string, string>
    cwd?: string
    waitFor?: string
    typed?: string
    meanwhile?: () => Promise<unknown>
  },
): Promise<Outcome> =>
  new Promise((done) => {
    const quoted = [process.execPath, cliBin, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ")
    const child = spawn("script", ["-qec", quoted, "/dev/null"], {
      cwd: options.cwd ?? freshDirectory(),
      env: { PATH: process.env.PATH ?? "", SHELL: "/bin/sh", TERM: "dumb", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    })
    let stdout = ""
    let typed = false
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      if (!typed && options.waitFor !== undefined && stdout.includes(options.waitFor)) {
        typed = true
        void (options.meanwhile?.() ?? Promise.resolve()).finally(() => child.stdin.write(options.typed ?? ""))
      }
    })
    // `close`, not `exit`: the output may still be in the pipe when the process has exited.
    child.on("close", (code) => done({ code, stdout, stderr: "" }))
  })
