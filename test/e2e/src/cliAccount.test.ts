/**
 * The rest of the `coffer` user commands end to end: `schemas get` resolving a range with a platform-scoped token,
 * every exit code of the README, `login` (stdin and a hidden prompt on a terminal), `whoami`, `init`, `logout`,
 * the progress bar of `push` on a terminal, completions, and help with an example on every command.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { call, coffer, devLogin, onTerminal, project, serve, setAll, stopHosts } from "./cliHarness.js"
import { freshDirectory } from "./host.js"

afterEach(stopHosts)

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
    // The platform alone is its latest version, as in `@extends`.
    expect(JSON.parse((await coffer(["schemas", "get", "app"], { env })).stdout)).toEqual({ v: 3 })
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
    // What to do next, and that a COFFER_TOKEN would win over a newly stored key.
    expect(expired.stderr).toBe(
      `coffer: Invalid API key: run \`coffer login --url ${secrets}\` to store a new key ` +
        "(COFFER_TOKEN, when set, comes first)\n",
    )
    // A 404 names what was looked for: a mistyped --env and a missing key read differently.
    const missing = await expectCode(["secrets", "get", "MISSING"], 3)
    expect(missing.stderr).toBe("coffer: Secret not found (MISSING in app/development)\n")
    const noEnvironment = await expectCode(["secrets", "list", "--env", "nope"], 3)
    expect(noEnvironment.stderr).toBe("coffer: Environment not found (app/nope)\n")
    const noProject = await expectCode(["secrets", "list", "--project", "nope"], 3)
    // The key belongs to app: the service answers a project out of its reach as missing, so the command says so.
    expect(noProject.stderr).toBe(
      "coffer: Project not found (nope/development): this API key reaches project app only\n",
    )
    const refused = await expectCode(["secrets", "set", "A=2"], 4, { COFFER_TOKEN: readKey })
    expect(refused.stderr.trim().split("\n")).toHaveLength(1)
    await host.stop()
    const down = await expectCode(["secrets", "list"], 5)
    expect(down.stderr).toMatch(/^coffer: cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/)
  })

  it("a command sent to the other service says which service answered, whatever the status it failed with", async () => {
    const { secrets, schemas } = await serve()
    const { env } = await project(secrets)
    const toSchemas = { ...env, COFFER_URL: schemas }
    const wrong = `coffer: ${schemas} is the Coffer Schemas service; secrets commands need the Secrets service (port 8788 by default): give its URL with --url or COFFER_URL\n`
    // The Schemas service answers a project's routes 404 and `GET /api/projects` (finding the key's project) 401.
    for (const args of [["secrets", "list", "-p", "app"], ["secrets", "pull"], ["whoami"]]) {
      const outcome = await coffer(args, { env: toSchemas })
      expect([args, outcome.code, outcome.stderr]).toEqual([args, 1, wrong])
    }
    const toSecrets = { ...env, COFFER_SCHEMAS_URL: secrets, COFFER_SCHEMAS_TOKEN: `cfs_${"a".repeat(43)}` }
    const reverse = await coffer(["schemas", "list"], { env: toSecrets })
    expect([reverse.code, reverse.stderr]).toEqual([
      1,
      `coffer: ${secrets} is the Coffer Secrets service; schemas commands need the Schemas service (port 8787 by default): give its URL with --schemas-url or COFFER_SCHEMAS_URL\n`,
    ])
    // The right service's own 404 and 401 are left as they are.
    const missing = await coffer(["secrets", "get", "MISSING"], { env })
    expect([missing.code, missing.stderr]).toEqual([3, "coffer: Secret not found (MISSING in app/development)\n"])
  })

  it("login reads the key from stdin, checks it and stores it 0600; whoami; init; logout", async () => {
    const { secrets, schemas } = await serve()
    const { env, readKey } = await project(secrets)
    const { COFFER_TOKEN: _token, COFFER_URL: _url, COFFER_ENVIRONMENT: _environment, ...bare } = env
    // A secrets key checked against the schemas service's URL (or the reverse) says which service answered.
    const crossed = await coffer(["login", "--url", schemas], { env: bare, stdin: `${readKey}\n` })
    expect([crossed.code, crossed.stderr]).toEqual([
      1,
      `coffer: ${schemas} is the Coffer Schemas service; secrets commands need the Secrets service (port 8788 by default): give its URL with --url or COFFER_URL\n`,
    ])
    // So does a browser login started at the schemas service, which has none.
    const crossedWeb = await coffer(["login", "--web", "--no-browser", "--url", schemas], { env: bare })
    expect([crossedWeb.code, crossedWeb.stderr]).toEqual([
      1,
      `coffer: ${schemas} is the Coffer Schemas service; secrets commands need the Secrets service (port 8788 by default): give its URL with --url or COFFER_URL\n`,
    ])
    const crossedBack = await coffer(["login", "--schemas-url", secrets], {
      env: bare,
      stdin: `cfs_${"a".repeat(43)}\n`,
    })
    expect([crossedBack.code, crossedBack.stderr]).toEqual([
      1,
      `coffer: ${secrets} is the Coffer Secrets service; schemas commands need the Schemas service (port 8787 by default): give its URL with --schemas-url or COFFER_SCHEMAS_URL\n`,
    ])
    const badLogin = await coffer(["login", "--url", secrets], { env: bare, stdin: `cfk_${"b".repeat(43)}\n` })
    expect(badLogin.code).toBe(2)
    const empty = await coffer(["login", "--url", secrets], { env: bare, stdin: "" })
    expect([empty.code, empty.stderr]).toEqual([
      1,
      "coffer: no key given: paste it at the prompt, or pipe it in (`< key.txt`)\n",
    ])
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

  it("whoami says a write key acts as read once its holder is a read member", async () => {
    const { secrets } = await serve()
    const { cookie, env } = await project(secrets)
    const bob = await devLogin(secrets, "bob@example.com")
    const { token } = (await call(secrets, "POST", "/api/projects/app/invites", { cookie, body: { role: "write" } }))
      .body
    expect((await call(secrets, "POST", "/api/invites/accept", { cookie: bob, body: { token } })).status).toBe(200)
    const key = (
      await call(secrets, "POST", "/api/api-keys", {
        cookie: bob,
        body: { name: "ci", projectSlug: "app", scope: "write" },
      })
    ).body.key as string
    const whoami = async () => (await coffer(["whoami"], { env: { ...env, COFFER_TOKEN: key } })).stdout
    expect(await whoami()).toContain("\nscope:   write\n")
    const me = (await call(secrets, "GET", "/api/auth/me", { cookie: bob })).body.user.id as string
    const demoted = await call(secrets, "PATCH", `/api/projects/app/members/${me}`, { cookie, body: { role: "read" } })
    expect(demoted.status).toBe(200)
    expect(await whoami()).toContain("\nscope:   write (acts as read: its holder is now a read member)\n")
    const json = JSON.parse((await coffer(["whoami", "--json"], { env: { ...env, COFFER_TOKEN: key } })).stdout)
    expect(json.apiKey).toMatchObject({ scope: "write", holderRole: "read" })
  })

  it("login to a second server makes it the default and says so; a COFFER_URL that still wins is named", async () => {
    const first = await serve()
    const second = await serve()
    const { env, readKey: firstKey } = await project(first.secrets)
    const { readKey: secondKey } = await project(second.secrets)
    const { COFFER_TOKEN: _token, COFFER_URL: _url, COFFER_ENVIRONMENT: _environment, ...bare } = env
    const whoamiUrl = async (args: ReadonlyArray<string> = []) =>
      JSON.parse((await coffer(["whoami", "--json", ...args], { env: bare })).stdout).url
    const once = await coffer(["login", "--url", first.secrets], { env: bare, stdin: `${firstKey}\n` })
    expect(once.stderr).toMatch(/key stored in [^;]*config\.json\n$/)
    const again = await coffer(["login", "--url", second.secrets], { env: bare, stdin: `${secondKey}\n` })
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(
      `; it is now the default server, instead of ${first.secrets} (its key stays stored: pass --url ${first.secrets} to use it)\n`,
    )
    expect(await whoamiUrl()).toBe(second.secrets)
    expect(await whoamiUrl(["--url", first.secrets])).toBe(first.secrets)
    // The environment comes before the default: the login changes nothing for these commands, and says so.
    const shadowed = await coffer(["login", "--url", first.secrets], {
      env: { ...bare, COFFER_URL: second.secrets },
      stdin: `${firstKey}\n`,
    })
    expect(shadowed.stderr).toContain(
      `; commands here still use ${second.secrets}, named by COFFER_URL or .coffer.json, which come before the default\n`,
    )
  })

  it("prints completions for bash, zsh, fish and PowerShell, and help with an example on every command", async () => {
    for (const shell of ["bash", "zsh", "fish", "powershell", "sh", "pwsh"]) {
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
      ...[
        "run",
        "pull",
        "substitute",
        "push",
        "import",
        "copy",
        "set",
        "get",
        "list",
        "delete",
        "history",
        "restore",
        "diff",
        "audit",
      ].map((c) => ["secrets", c]),
      ...["get", "list", "diff"].map((c) => ["schemas", c]),
      ["run"],
      ["environments"],
      ...["list", "create", "delete"].map((c) => ["environments", c]),
    ]
    // The README's top-level flags, on both commands: the standalone one and the server's.
    for (const server of [false, true]) {
      for (const flag of ["--version", "-v"]) {
        const version = await coffer([flag], { server })
        expect([version.code, version.stderr]).toEqual([0, ""])
        expect(version.stdout).toMatch(/^coffer v\d+\.\d+\.\d+\S*\n$/)
      }
      const completions = await coffer(["--completions", "bash"], { server })
      expect(completions.code, completions.stderr).toBe(0)
      expect(completions.stdout).toContain("coffer-completions")
    }
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

describe("an API key that expires soon", () => {
  it("is said on stderr, once a run, in its last week; a key further off or never expiring says nothing", async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    await setAll(env, { A: "1", B: "2" })
    const keyFor = async (expiresInDays: number) =>
      (
        await call(secrets, "POST", "/api/api-keys", {
          cookie,
          body: { name: `in ${expiresInDays}`, projectSlug: "app", scope: "read", expiresInDays },
        })
      ).body as { key: string; expiresAt: string }
    const soon = await keyFor(2)
    // A diff asks for both environments: two answers with the header, one note.
    const diffed = await coffer(["secrets", "diff", "--env", "development", "--env2", "staging", "--json"], {
      env: { ...env, COFFER_TOKEN: soon.key },
    })
    expect([diffed.code, JSON.parse(diffed.stdout).onlyInEnv]).toEqual([0, ["A", "B"]])
    expect(diffed.stderr).toBe(
      `coffer: this API key expires in 1 day (${soon.expiresAt}): make a new one before then (API keys in the web ` +
        "app, or coffer login --web)\n",
    )
    const later = await keyFor(30)
    for (const token of [later.key, env.COFFER_TOKEN]) {
      const quiet = await coffer(["secrets", "list"], { env: { ...env, COFFER_TOKEN: token } })
      expect([quiet.code, quiet.stderr]).toEqual([0, ""])
    }
  })
})

describe("coffer with a mistyped command", () => {
  it("suggests the nearest commands at the level typed, or one level down, and still exits 1", async () => {
    const typo = await coffer(["secrets", "lst"])
    expect([typo.code, typo.stdout]).toEqual([1, ""])
    expect(typo.stderr).toContain(
      'Unknown subcommand "lst" for "coffer secrets"\n\n  Did you mean this?\n    coffer secrets list\n',
    )
    const lower = await coffer(["pull", "--env", "ci"])
    expect([lower.code, lower.stderr]).toEqual([
      1,
      expect.stringContaining("Did you mean this?\n    coffer secrets pull\n"),
    ])
    // Near nothing: no guess, as git says of a word it cannot place.
    const status = await coffer(["status"])
    expect([status.code, status.stderr]).toEqual([1, expect.not.stringContaining("Did you mean")])
    // The server's `coffer`, for its own commands and the user commands alike.
    const server = await coffer(["migrat"], { server: true })
    expect([server.code, server.stderr]).toEqual([
      1,
      'coffer: unknown command "migrat" (did you mean `coffer migrate`?); run `coffer --help`\n',
    ])
    const user = await coffer(["logn"], { server: true })
    expect([user.code, user.stderr]).toEqual([
      1,
      'coffer: unknown command "logn" (did you mean `coffer login`?); run `coffer --help`\n',
    ])
    const nested = await coffer(["secrets", "lst"], { server: true })
    expect([nested.code, nested.stderr]).toEqual([1, expect.stringContaining("    coffer secrets list\n")])
  })
})
