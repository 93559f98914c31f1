/**
 * The `coffer` user commands (`@coffer/cli`) end to end: the built command, run as a user or a CI job would,
 * against a built host on free ports with a real SQLite file. `run` injects values exactly and passes on signals
 * and exit codes; `pull` gives files that bash and the `dotenv` parser read back exactly; `push` shows and applies
 * changes (1,000 keys round-trip); the fallback snapshot is used while the service is down and deleted once the
 * key is refused; `schemas get` resolves a range with a platform-scoped token; every exit code of the README.
 */
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parse as parseDotenv } from "dotenv"
import { afterEach, describe, expect, it } from "vitest"
import { freshDirectory, type Host, bin as serverBin, start } from "./host.js"

const root = resolve(import.meta.dirname, "../../..")
const cliBin = join(root, "hosts/cli/dist/bin.js")

const running: Array<Host> = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((host) => host.stop("SIGKILL")))
})

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `coffer <args>` (the standalone package unless `server` is set) with `env` on top of a bare one. */
const coffer = (
  args: ReadonlyArray<string>,
  options: { env?: Record<string, string>; cwd?: string; stdin?: string; server?: boolean } = {},
): Promise<Outcome> =>
  new Promise((done) => {
    const child = spawn(process.execPath, [options.server ? serverBin : cliBin, ...args], {
      cwd: options.cwd ?? freshDirectory(),
      env: { PATH: process.env.PATH ?? "", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    child.stdin.end(options.stdin ?? "")
    child.on("exit", (code) => done({ code, stdout, stderr }))
  })

const masterKey = () => randomBytes(32).toString("base64")

/** A host on a SQLite file of its own; `restart` serves the same database again, on new ports. */
const serve = async (database = join(freshDirectory(), "coffer.db"), key = masterKey()) => {
  const host = await start({ env: { COFFER_DATABASE_URL: `sqlite:${database}`, COFFER_MASTER_KEY: key } })
  running.push(host)
  return { host, secrets: host.secrets!, schemas: host.schemas!, restart: () => serve(database, key) }
}

const call = async (base: string, method: string, path: string, options: { cookie?: string; body?: unknown } = {}) => {
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

const devLogin = async (base: string, email: string, groups?: ReadonlyArray<string>) => {
  const response = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(groups === undefined ? { email } : { email, groups }),
  })
  expect(response.status).toBe(200)
  return response.headers.getSetCookie()[0]!.split(";")[0]!
}

/** A project `app` owned by ada, with a write key and a read key; the environment a CLI run starts from. */
const project = async (secrets: string) => {
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

const corpus: Record<string, string> = {
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

const setAll = async (env: Record<string, string>, values: Record<string, string>, environment = "development") => {
  for (const [key, value] of Object.entries(values)) {
    const set = await coffer(["secrets", "set", "--env", environment, key], { env, stdin: `${value}\n` })
    expect(set.code, set.stderr).toBe(0)
  }
}

const printEnv = (keys: ReadonlyArray<string>) => [
  process.execPath,
  "-e",
  `process.stdout.write(JSON.stringify(Object.fromEntries(${JSON.stringify(keys)}.map((k) => [k, process.env[k]]))))`,
]

describe("coffer secrets run", () => {
  it("injects every value exactly (multi-line, quotes, $, empty) and exits with the child's code", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    await setAll(env, corpus)
    const ran = await coffer(["secrets", "run", "--", ...printEnv(Object.keys(corpus))], { env })
    expect(ran.code, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout)).toEqual(corpus)
    const only = await coffer(["secrets", "run", "--only", "EMPTY,PLAIN", "--", ...printEnv(["PLAIN", "DOUBLE"])], {
      env,
    })
    expect(JSON.parse(only.stdout)).toEqual({ PLAIN: corpus.PLAIN })
    expect((await coffer(["secrets", "run", "--", "sh", "-c", "exit 7"], { env })).code).toBe(7)
    expect((await coffer(["secrets", "run", "--", "sh", "-c", "kill -KILL $$"], { env })).code).toBe(128 + 9)
    // Through the server's own `coffer`, as `pnpm coffer secrets run -- …` runs it.
    const viaServer = await coffer(["secrets", "run", "--", ...printEnv(["MULTILINE"])], { env, server: true })
    expect(JSON.parse(viaServer.stdout)).toEqual({ MULTILINE: corpus.MULTILINE })
    expect(ran.stderr + only.stderr).not.toContain(env.COFFER_TOKEN)
  })

  it.each(["SIGINT", "SIGTERM", "SIGHUP"] as const)(
    "forwards %s to the child and exits with its code",
    async (signal) => {
      const { secrets } = await serve()
      const { env } = await project(secrets)
      await setAll(env, { READY: "yes" })
      const script = `process.on(${JSON.stringify(signal)}, () => { process.stdout.write("got " + ${JSON.stringify(signal)}); process.exit(42) }); process.stdout.write("ready " + process.env.READY + "\\n"); setInterval(() => {}, 1000)`
      const child = spawn(process.execPath, [cliBin, "secrets", "run", "--", process.execPath, "-e", script], {
        cwd: freshDirectory(),
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      })
      let stdout = ""
      const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
      await new Promise<void>((ready) =>
        child.stdout.on("data", (chunk) => {
          stdout += chunk
          if (stdout.includes("ready yes")) ready()
        }),
      )
      child.kill(signal)
      expect(await exited).toBe(42)
      expect(stdout).toContain(`got ${signal}`)
    },
  )
})

describe("coffer secrets pull and push", () => {
  it("pull: the service's .env byte for byte, read back exactly by bash and dotenv; files are 0600", async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    await setAll(env, corpus)
    const cwd = freshDirectory()
    const pulled = await coffer(["secrets", "pull", "--output", "dev.env"], { env, cwd })
    expect(pulled.code, pulled.stderr).toBe(0)
    const file = join(cwd, "dev.env")
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const served = await fetch(`${secrets}/api/projects/app/environments/development/secrets/.env`, {
      headers: { cookie },
    })
    expect(readFileSync(file, "utf8")).toBe(await served.text())
    expect((await coffer(["secrets", "pull"], { env })).stdout).toBe(readFileSync(file, "utf8"))
    const keys = Object.keys(corpus)
    const fromBash = (script: string) =>
      JSON.parse(
        execFileSync(
          "bash",
          [
            "--norc",
            "--noprofile",
            "-c",
            `${script}; ${printEnv(keys)
              .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
              .join(" ")}`,
          ],
          {
            env: { PATH: process.env.PATH ?? "" },
          },
        ).toString(),
      )
    expect(fromBash(`set -a; . ${JSON.stringify(file)}; set +a`)).toEqual(corpus)
    // Seed 001 §4 rule 3: dotenv keeps the backslashes of a value that has a single quote and an escaped character.
    const { HARD: _hard, ...exact } = corpus
    expect(parseDotenv(readFileSync(file))).toMatchObject(exact)
    const shell = await coffer(["secrets", "pull", "--format", "shell"], { env })
    writeFileSync(join(cwd, "dev.sh"), shell.stdout)
    expect(fromBash(`. ${JSON.stringify(join(cwd, "dev.sh"))}`)).toEqual(corpus)
    const json = await coffer(["secrets", "pull", "--format", "json", "-o", "dev.json"], { env, cwd })
    expect(json.code).toBe(0)
    expect(JSON.parse(readFileSync(join(cwd, "dev.json"), "utf8"))).toEqual(corpus)
    expect(statSync(join(cwd, "dev.json")).mode & 0o777).toBe(0o600)
  })

  it("push --dry-run shows keys (never values) and changes nothing; push applies, --prune deletes", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    await setAll(env, { KEEP: "same", CHANGE: "old", GONE: "bye" })
    const cwd = freshDirectory()
    writeFileSync(join(cwd, "next.env"), "KEEP=same\nCHANGE='secret-new-value'\nADDED=\"fresh $ value\"\n")
    const before = (await coffer(["secrets", "list", "--json"], { env })).stdout
    const dry = await coffer(["secrets", "push", "next.env", "--dry-run", "--prune"], { env, cwd })
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain("+ ADDED")
    expect(dry.stdout).toContain("~ CHANGE")
    expect(dry.stdout).toContain("- GONE")
    expect(dry.stdout).not.toContain("KEEP")
    expect(dry.stdout).not.toContain("secret-new-value")
    expect((await coffer(["secrets", "list", "--json"], { env })).stdout).toBe(before)
    const pushed = await coffer(["secrets", "push", "next.env"], { env, cwd })
    expect(pushed.code, pushed.stderr).toBe(0)
    const values = async () => JSON.parse((await coffer(["secrets", "pull", "--format", "json"], { env })).stdout)
    expect(await values()).toEqual({ KEEP: "same", CHANGE: "secret-new-value", ADDED: "fresh $ value", GONE: "bye" })
    expect((await coffer(["secrets", "push", "next.env", "--prune"], { env, cwd })).code).toBe(0)
    expect(await values()).toEqual({ KEEP: "same", CHANGE: "secret-new-value", ADDED: "fresh $ value" })
  })

  it("push then pull round-trips 1,000 keys, and pushing the pulled file again changes nothing", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    const wanted: Record<string, string> = {}
    for (let index = 0; index < 1000; index++) wanted[`KEY_${index}`] = Object.values(corpus)[index % 11]! + index
    const cwd = freshDirectory()
    writeFileSync(join(cwd, "big.json"), JSON.stringify(wanted))
    const pushed = await coffer(["secrets", "push", "big.json"], { env, cwd })
    expect(pushed.code, pushed.stderr).toBe(0)
    expect(pushed.stdout).toContain("1000 to add")
    const pulled = await coffer(["secrets", "pull", "--format", "json"], { env })
    expect(JSON.parse(pulled.stdout)).toEqual(wanted)
    expect((await coffer(["secrets", "pull", "-o", "big.env"], { env, cwd })).code).toBe(0)
    const again = await coffer(["secrets", "push", "big.env", "--dry-run", "--prune"], { env, cwd })
    expect(again.stdout).toContain("0 to add, 0 to change, 0 to delete")
  })

  it("import: --on-conflict fail writes nothing (exit 4), skip keeps, overwrite replaces", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    await setAll(env, { A: "1", B: "2" })
    const cwd = freshDirectory()
    writeFileSync(join(cwd, "in.env"), "A=1\nB=changed\nC=3\n")
    const failed = await coffer(["secrets", "import", "in.env"], { env, cwd })
    expect(failed.code).toBe(4)
    expect(failed.stderr).toContain("B")
    const values = async () => JSON.parse((await coffer(["secrets", "pull", "--format", "json"], { env })).stdout)
    expect(await values()).toEqual({ A: "1", B: "2" })
    expect((await coffer(["secrets", "import", "in.env", "--on-conflict", "skip"], { env, cwd })).code).toBe(0)
    expect(await values()).toEqual({ A: "1", B: "2", C: "3" })
    expect((await coffer(["secrets", "import", "in.env", "--on-conflict", "overwrite"], { env, cwd })).code).toBe(0)
    expect(await values()).toEqual({ A: "1", B: "changed", C: "3" })
  })
})

describe("coffer secrets: one secret at a time", () => {
  it("set pairs, get (--plain, --json), history, restore --version, diff (keys unless --show-values), delete", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    const set = await coffer(["secrets", "set", "A=first", "B=x=y"], { env })
    expect(set.stdout).toBe("A: created, version 1\nB: created, version 1\n")
    expect((await coffer(["secrets", "set", "A=second"], { env })).stdout).toBe("A: updated, version 2\n")
    expect((await coffer(["secrets", "get", "B"], { env })).stdout).toBe("x=y\n")
    expect((await coffer(["secrets", "get", "B", "--plain"], { env })).stdout).toBe("x=y")
    expect(JSON.parse((await coffer(["secrets", "get", "A", "--json"], { env })).stdout)).toMatchObject({
      key: "A",
      value: "second",
    })
    const history = JSON.parse((await coffer(["secrets", "history", "A", "--json"], { env })).stdout)
    expect(history.map((entry: { version: number }) => entry.version)).toEqual([2, 1])
    expect((await coffer(["secrets", "history", "A"], { env })).stdout).not.toContain("first")
    const restored = await coffer(["secrets", "restore", "A", "--version", "1"], { env })
    expect(restored.stdout).toBe("A: version 1 restored as version 3\n")
    expect((await coffer(["secrets", "get", "A", "--plain"], { env })).stdout).toBe("first")
    expect((await coffer(["secrets", "set", "--env", "staging", "A=other", "C=3"], { env })).code).toBe(0)
    const diff = await coffer(["secrets", "diff", "--env", "development", "--env2", "staging"], { env })
    expect(diff.stdout).toBe("- B  only in development\n+ C  only in staging\n~ A  differs\n")
    const shown = await coffer(["secrets", "diff", "--env2", "staging", "--show-values"], { env })
    expect(shown.stdout).toContain('~ A  differs: "first" → "other"')
    const list = await coffer(["secrets", "list"], { env })
    expect(list.stdout).toMatch(/^KEY\s+VERSION\s+UPDATED\nA\s+3\s/)
    expect(list.stdout).not.toContain("first")
    expect((await coffer(["secrets", "delete", "A"], { env })).code).toBe(0)
    expect((await coffer(["secrets", "get", "A"], { env })).code).toBe(3)
    expect((await coffer(["secrets", "history", "A"], { env })).code).toBe(3)
  })
})

describe("coffer secrets run --fallback", () => {
  it("uses the snapshot while the host is down, and deletes it once the key is refused", async () => {
    const first = await serve()
    const { env, cookie, writeKey } = await project(first.secrets)
    await setAll(env, { DB_URL: "postgres://db/app" })
    const cwd = freshDirectory()
    const snapshot = join(cwd, "snap")
    const args = ["secrets", "run", "--project", "app", "--fallback", "snap", "--", ...printEnv(["DB_URL"])]
    expect(JSON.parse((await coffer(args, { env, cwd })).stdout)).toEqual({ DB_URL: "postgres://db/app" })
    expect(statSync(snapshot).mode & 0o777).toBe(0o600)
    expect(readFileSync(snapshot, "utf8")).not.toContain("postgres://db/app")
    await first.host.stop()
    const down = await coffer(args, { env, cwd })
    expect(down.code, down.stderr).toBe(0)
    expect(JSON.parse(down.stdout)).toEqual({ DB_URL: "postgres://db/app" })
    expect(down.stderr).toContain("using the snapshot")
    const offline = await coffer(["secrets", "run", "--offline", "--fallback", "snap", "--", ...printEnv(["DB_URL"])], {
      env,
      cwd,
    })
    expect(JSON.parse(offline.stdout)).toEqual({ DB_URL: "postgres://db/app" })
    // Another key cannot open it.
    const stranger = await coffer(["secrets", "run", "--offline", "--fallback", "snap", "--", "true"], {
      env: { ...env, COFFER_TOKEN: `cfk_${"x".repeat(43)}` },
      cwd,
    })
    expect(stranger.code).toBe(2)
    const second = await first.restart()
    const deleted = await call(second.secrets, "DELETE", `/api/api-keys/${writeKey.id}`, {
      cookie: await devLogin(second.secrets, "ada@example.com"),
    })
    expect(deleted.status).toBe(200)
    expect(cookie).not.toBe("")
    const refused = await coffer(args, { env: { ...env, COFFER_URL: second.secrets }, cwd })
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe("")
    expect(existsSync(snapshot)).toBe(false)
  })
})

describe("coffer schemas", () => {
  it("get resolves a range with a platform-scoped token; list; diff; out-of-scope is 3", async () => {
    const { schemas } = await serve()
    const cookie = await devLogin(schemas, "ed@example.com", [])
    const put = async (path: string, content: unknown) =>
      expect((await call(schemas, "PUT", path, { cookie, body: { content } })).status).toBe(200)
    expect(
      (await call(schemas, "POST", "/api/base", { cookie, body: { name: "base", versions: ["1.0.0"] } })).status,
    ).toBe(201)
    expect(
      (
        await call(schemas, "POST", "/api/app", {
          cookie,
          body: { name: "app", versions: ["1.0.0", "2.0.0", "2.1.0", "3.0.0"] },
        })
      ).status,
    ).toBe(201)
    await put("/api/base/1.0.0", { theme: { color: "red", size: 1 } })
    await put("/api/app/1.0.0", { "@extends": "base/1.0.0", v: 1 })
    await put("/api/app/2.0.0", { "@extends": "base/1.0.0", v: 2 })
    await put("/api/app/2.1.0", { "@extends": "base/1.0.0", v: 21, theme: { size: 2 } })
    await put("/api/app/3.0.0", { v: 3 })
    const token = async (platforms: ReadonlyArray<string>) =>
      (await call(schemas, "POST", "/api/_ui/v1/tokens", { cookie, body: { name: "ci", platforms } })).body
        .token as string
    const env = {
      HOME: freshDirectory(),
      COFFER_SCHEMAS_URL: schemas,
      COFFER_SCHEMAS_TOKEN: await token(["app", "base"]),
    }
    const got = await coffer(["schemas", "get", "app/^2"], { env })
    expect(got.code, got.stderr).toBe(0)
    expect(JSON.parse(got.stdout)).toEqual({ theme: { color: "red", size: 2 }, v: 21 })
    expect(JSON.parse((await coffer(["schemas", "get", "app/latest"], { env })).stdout)).toEqual({ v: 3 })
    expect(JSON.parse((await coffer(["schemas", "get", "app/1.0.0"], { env })).stdout)).toMatchObject({ v: 1 })
    const cwd = freshDirectory()
    expect((await coffer(["schemas", "get", "app/~2.0.0", "--output", "c.json"], { env, cwd })).code).toBe(0)
    expect(JSON.parse(readFileSync(join(cwd, "c.json"), "utf8"))).toMatchObject({ v: 2 })
    const listed = JSON.parse((await coffer(["schemas", "list", "--json"], { env })).stdout)
    expect(listed.map((platform: { name: string }) => platform.name).sort()).toEqual(["app", "base"])
    const diff = JSON.parse((await coffer(["schemas", "diff", "app/2.0.0", "app/^2.0.0", "--json"], { env })).stdout)
    expect(diff).toEqual([
      { op: "replace", path: "/theme/size", value: 2 },
      { op: "replace", path: "/v", value: 21 },
    ])
    expect((await coffer(["schemas", "get", "app/^9.0.0"], { env })).code).toBe(3)
    const appOnly = { ...env, COFFER_SCHEMAS_TOKEN: await token(["base"]) }
    const outOfScope = await coffer(["schemas", "get", "app/^2.0.0"], { env: appOnly })
    expect(outOfScope.code).toBe(3)
    expect(outOfScope.stderr.trim().split("\n")).toHaveLength(1)
  })
})

describe("coffer exit codes, login and settings", () => {
  it("0 ok, 1 usage, 2 authentication, 3 not found, 4 refused, 5 server or network; one line, no stack", async () => {
    const { secrets, host } = await serve()
    const { env, readKey } = await project(secrets)
    await setAll(env, { A: "1" })
    const expectCode = async (args: ReadonlyArray<string>, code: number, extra: Record<string, string> = {}) => {
      const outcome = await coffer(args, { env: { ...env, ...extra } })
      expect(outcome.code, `${args.join(" ")}: ${outcome.stderr}`).toBe(code)
      expect(outcome.stderr).not.toMatch(/\n\s+at /)
      expect(outcome.stderr).not.toContain(env.COFFER_TOKEN)
      return outcome
    }
    await expectCode(["secrets", "get", "A"], 0)
    await expectCode(["secrets", "get", "A", "--bogus"], 1)
    await expectCode(["secrets", "list"], 1, { COFFER_ENVIRONMENT: "" })
    await expectCode(["secrets", "set", "bad key=1"], 1)
    const expired = await expectCode(["secrets", "list"], 2, { COFFER_TOKEN: `cfk_${"a".repeat(43)}` })
    expect(expired.stderr).toBe("coffer: Invalid API key\n")
    await expectCode(["secrets", "get", "MISSING"], 3)
    await expectCode(["secrets", "list", "--env", "nope"], 3)
    const refused = await expectCode(["secrets", "set", "A=2"], 4, { COFFER_TOKEN: readKey })
    expect(refused.stderr.trim().split("\n")).toHaveLength(1)
    await host.stop()
    const down = await expectCode(["secrets", "list"], 5)
    expect(down.stderr).toMatch(/^coffer: cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/)
  })

  it("login reads the key from stdin, checks it and stores it 0600; whoami; init; logout", async () => {
    const { secrets } = await serve()
    const { env, readKey } = await project(secrets)
    const { COFFER_TOKEN: _token, COFFER_URL: _url, COFFER_ENVIRONMENT: _environment, ...bare } = env
    const badLogin = await coffer(["login", "--url", secrets], { env: bare, stdin: `cfk_${"b".repeat(43)}\n` })
    expect(badLogin.code).toBe(2)
    expect(existsSync(join(env.XDG_CONFIG_HOME, "coffer/config.json"))).toBe(false)
    const login = await coffer(["login", "--url", `${secrets}/`], { env: bare, stdin: `${readKey}\n` })
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout + login.stderr).not.toContain(readKey)
    const config = join(env.XDG_CONFIG_HOME, "coffer/config.json")
    expect(statSync(config).mode & 0o777).toBe(0o600)
    const whoami = JSON.parse((await coffer(["whoami", "--json"], { env: bare })).stdout)
    expect(whoami).toMatchObject({
      user: { email: "ada@example.com" },
      apiKey: { scope: "read", expiresAt: null, project: { slug: "app" } },
    })
    const cwd = freshDirectory()
    const init = await coffer(["init", "--env", "staging"], { env: bare, cwd })
    expect(init.code, init.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(cwd, ".coffer.json"), "utf8"))).toEqual({
      project: "app",
      environment: "staging",
      url: secrets,
    })
    expect((await coffer(["init", "--env", "staging"], { env: bare, cwd })).code).toBe(4)
    // A subdirectory finds .coffer.json; flags beat it, the environment beats it too.
    const nested = join(cwd, "src/deep")
    mkdirSync(nested, { recursive: true })
    const listed = await coffer(["secrets", "list", "--json"], { env: bare, cwd: nested })
    expect(listed.code, listed.stderr).toBe(0)
    expect((await coffer(["secrets", "list", "--env", "nope"], { env: bare, cwd: nested })).code).toBe(3)
    expect(
      (await coffer(["secrets", "list"], { env: { ...bare, COFFER_ENVIRONMENT: "nope" }, cwd: nested })).code,
    ).toBe(3)
    expect((await coffer(["logout"], { env: bare, cwd })).code).toBe(0)
    expect((await coffer(["whoami"], { env: bare, cwd })).code).toBe(2)
  })

  it("prints completions for bash, zsh and fish, and help with an example on every command", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const script = await coffer(["completions", shell])
      expect(script.code).toBe(0)
      expect(script.stdout).toContain("coffer")
      expect(script.stdout).toContain("secrets")
    }
    const leaves = [
      [],
      ["secrets"],
      ["schemas"],
      ["login"],
      ["logout"],
      ["whoami"],
      ["init"],
      ["completions"],
      ...["run", "pull", "push", "import", "set", "get", "list", "delete", "history", "restore", "diff"].map((c) => [
        "secrets",
        c,
      ]),
      ...["get", "list", "diff"].map((c) => ["schemas", c]),
    ]
    const serverHelp = await coffer(["--help"], { server: true })
    expect(serverHelp.stdout).toMatch(/^\s+secrets\s/m)
    expect((await coffer(["help", "secrets"], { server: true })).stdout).toContain("EXAMPLES")
    for (const command of leaves) {
      const help = await coffer([...command, "--help"])
      expect(help.code, command.join(" ")).toBe(0)
      expect(help.stdout, command.join(" ")).toContain("EXAMPLES")
    }
  })
})

/** Runs `coffer <args>` on a pseudo-terminal (util-linux `script`), typing `typed` once `waitFor` is shown. */
const onTerminal = (
  args: ReadonlyArray<string>,
  options: { env: Record<string, string>; cwd?: string; waitFor?: string; typed?: string },
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
        child.stdin.write(options.typed ?? "")
      }
    })
    child.on("exit", (code) => done({ code, stdout, stderr: "" }))
  })

describe("coffer on a terminal", () => {
  it("login hides the key as it is typed; push draws a progress bar for large files", async () => {
    const { secrets } = await serve()
    const { env, readKey } = await project(secrets)
    const { COFFER_TOKEN: _token, COFFER_URL: _url, ...bare } = env
    const login = await onTerminal(["login", "--url", secrets], {
      env: bare,
      waitFor: "API key: ",
      typed: `${readKey}\r`,
    })
    expect(login.code, login.stdout).toBe(0)
    expect(login.stdout).toContain("logged in")
    expect(login.stdout).not.toContain(readKey)
    expect(readFileSync(join(env.XDG_CONFIG_HOME, "coffer/config.json"), "utf8")).toContain(readKey)
    const cwd = freshDirectory()
    writeFileSync(join(cwd, "many.env"), Array.from({ length: 60 }, (_, index) => `K${index}=v${index}\n`).join(""))
    const pushed = await onTerminal(["secrets", "push", "many.env"], { env, cwd })
    expect(pushed.code, pushed.stdout).toBe(0)
    expect(pushed.stdout).toContain("pushing [")
    expect(pushed.stdout).toContain("60/60")
    const small = await onTerminal(["secrets", "push", "many.env"], { env, cwd })
    expect(small.stdout).not.toContain("pushing [")
  })
})
