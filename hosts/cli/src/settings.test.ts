/**
 * Settings precedence, highest first: flags, environment, `.coffer.json` (found upwards from the working
 * directory), the user's config file; a stored token goes only to the URL it was stored for. Checked on the pure
 * resolver, and through the real command parser against a local HTTP server that records what it was asked.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { runCli } from "./main.js"
import { resolveSettings } from "./settings.js"

describe("resolveSettings", () => {
  const projectFile = { project: "file-project", environment: "file-env", url: "http://file", schemasUrl: "http://sf" }
  const userConfig = {
    url: "http://user",
    schemasUrl: "http://su",
    tokens: { "http://file": "cfk_file", "http://user": "cfk_user", "http://sf": "cfs_file" },
  }

  it("takes flags over the environment over .coffer.json over the user's config", () => {
    const env = { COFFER_URL: "http://env/", COFFER_PROJECT: "env-project", COFFER_ENVIRONMENT: "env-env" }
    expect(
      resolveSettings({
        flags: { url: "http://flag", project: "flag-project", environment: "flag-env" },
        env,
        projectFile,
        userConfig,
      }),
    ).toMatchObject({ url: "http://flag", project: "flag-project", environment: "flag-env" })
    expect(resolveSettings({ flags: {}, env, projectFile, userConfig })).toMatchObject({
      url: "http://env",
      project: "env-project",
      environment: "env-env",
    })
    expect(resolveSettings({ flags: {}, env: {}, projectFile, userConfig })).toEqual({
      url: "http://file",
      token: "cfk_file",
      project: "file-project",
      environment: "file-env",
      schemasUrl: "http://sf",
      schemasToken: "cfs_file",
    })
    expect(resolveSettings({ flags: {}, env: {}, userConfig })).toMatchObject({ url: "http://user", token: "cfk_user" })
  })

  it("sends a stored token only to its own URL; COFFER_TOKEN goes wherever the URL points", () => {
    expect(resolveSettings({ flags: { url: "http://elsewhere" }, env: {}, userConfig }).token).toBeUndefined()
    expect(resolveSettings({ flags: { url: "http://user///" }, env: {}, userConfig }).token).toBe("cfk_user")
    expect(
      resolveSettings({ flags: { url: "http://elsewhere" }, env: { COFFER_TOKEN: "cfk_env" }, userConfig }).token,
    ).toBe("cfk_env")
    expect(resolveSettings({ flags: {}, env: { COFFER_SCHEMAS_TOKEN: "cfs_env" }, userConfig }).schemasToken).toBe(
      "cfs_env",
    )
  })

  it("takes scheme and host in any case as one URL, a key stored under another case (by an earlier version) too", () => {
    expect(resolveSettings({ flags: { url: "HTTP://User/" }, env: {}, userConfig })).toMatchObject({
      url: "http://user",
      token: "cfk_user",
    })
    const older = { tokens: { "HTTPS://Coffer.Example.com/Base": "cfk_older" } }
    expect(
      resolveSettings({ flags: { url: "https://coffer.example.com/Base" }, env: {}, userConfig: older }),
    ).toMatchObject({ url: "https://coffer.example.com/Base", token: "cfk_older" })
    // The path is the server's to read: its case counts.
    expect(
      resolveSettings({ flags: { url: "https://coffer.example.com/base" }, env: {}, userConfig: older }).token,
    ).toBeUndefined()
  })

  it("sends COFFER_TOKEN to a URL only a .coffer.json names when the person knows that URL, else says why not", () => {
    const env = { COFFER_TOKEN: "cfk_env", COFFER_SCHEMAS_TOKEN: "cfs_env" }
    const planted = { url: "http://attacker", schemasUrl: "http://attacker-schemas" }
    const withheld = resolveSettings({ flags: {}, env, projectFile: planted })
    expect(withheld).toMatchObject({ url: "http://attacker", schemasUrl: "http://attacker-schemas" })
    expect(withheld.token).toBeUndefined()
    expect(withheld.schemasToken).toBeUndefined()
    expect(withheld.tokenWithheld).toBe(
      "COFFER_TOKEN is not sent to http://attacker, which only a .coffer.json names: " +
        "set COFFER_URL=http://attacker (or pass the URL's flag) to send it there",
    )
    expect(withheld.schemasTokenWithheld).toContain("COFFER_SCHEMAS_TOKEN is not sent to http://attacker-schemas")
    // Chosen by the person: a flag, the environment, their config's default, a URL they logged in to.
    expect(resolveSettings({ flags: { url: "http://attacker" }, env, projectFile: planted }).token).toBe("cfk_env")
    const confirmed = { ...env, COFFER_URL: "http://attacker/", COFFER_SCHEMAS_URL: "http://attacker-schemas" }
    expect(resolveSettings({ flags: {}, env: confirmed, projectFile: planted })).toMatchObject({
      token: "cfk_env",
      schemasToken: "cfs_env",
    })
    expect(resolveSettings({ flags: {}, env, projectFile, userConfig })).toMatchObject({
      url: "http://file",
      token: "cfk_env",
      schemasToken: "cfs_env",
    })
    const defaultOnly = { url: "http://file/", schemasUrl: "http://sf" }
    expect(resolveSettings({ flags: {}, env, projectFile, userConfig: defaultOnly })).toMatchObject({
      token: "cfk_env",
      schemasToken: "cfs_env",
    })
  })

  it("reads an empty variable as unset", () => {
    expect(resolveSettings({ flags: {}, env: { COFFER_ENVIRONMENT: "" }, projectFile }).environment).toBe("file-env")
  })

  it("takes COFFER_TOKEN and COFFER_SCHEMAS_TOKEN without the blanks or line break around them", () => {
    const env = { COFFER_URL: "http://env", COFFER_TOKEN: "cfk_env\r\n", COFFER_SCHEMAS_TOKEN: " cfs_env\n" }
    expect(resolveSettings({ flags: {}, env, userConfig })).toMatchObject({ token: "cfk_env", schemasToken: "cfs_env" })
    expect(resolveSettings({ flags: {}, env: { COFFER_TOKEN: "\n" }, userConfig }).token).toBe("cfk_user")
  })

  it("takes COFFER_PROJECT and COFFER_ENVIRONMENT without the blanks or line break around them", () => {
    const env = { COFFER_PROJECT: "app\n", COFFER_ENVIRONMENT: " staging\r\n" }
    expect(resolveSettings({ flags: {}, env, projectFile })).toMatchObject({ project: "app", environment: "staging" })
    expect(resolveSettings({ flags: {}, env: { COFFER_ENVIRONMENT: "\n" }, projectFile }).environment).toBe("file-env")
  })
})

describe("settings through the command line", () => {
  const servers: Array<{ close: () => void }> = []
  afterEach(() => {
    for (const server of servers.splice(0)) server.close()
  })

  /** A stand-in secrets service that records each request's path and credential and lists no secrets. */
  const recorder = async () => {
    const seen: Array<{ path: string; authorization: string | undefined }> = []
    const server = createServer((request: IncomingMessage, response) => {
      seen.push({ path: request.url ?? "", authorization: request.headers.authorization })
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify({ secrets: [] }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    servers.push(server)
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
  }

  it("flags beat the environment, which beats .coffer.json found in a parent, which beats the user's config", async () => {
    const { url, seen } = await recorder()
    const home = mkdtempSync(join(tmpdir(), "coffer-cli-"))
    const cwd = join(home, "repo", "src")
    mkdirSync(cwd, { recursive: true })
    mkdirSync(join(home, "config", "coffer"), { recursive: true })
    writeFileSync(
      join(home, "config", "coffer", "config.json"),
      JSON.stringify({ url, tokens: { [url]: "cfk_stored" } }),
    )
    writeFileSync(join(home, "repo", ".coffer.json"), JSON.stringify({ project: "file-p", environment: "file-e" }))
    const env = { XDG_CONFIG_HOME: join(home, "config"), COFFER_ENVIRONMENT: "env-e" }
    expect(await runCli(["secrets", "list", "--json", "--env", "flag-e"], { env, cwd })).toBe(0)
    expect(await runCli(["secrets", "list", "--json"], { env, cwd })).toBe(0)
    expect(await runCli(["secrets", "list", "--json"], { env: { XDG_CONFIG_HOME: env.XDG_CONFIG_HOME }, cwd })).toBe(0)
    expect(await runCli(["secrets", "list", "--json", "-p", "flag-p"], { env, cwd })).toBe(0)
    expect(seen).toEqual([
      { path: "/api/projects/file-p/environments/flag-e/secrets", authorization: "Bearer cfk_stored" },
      { path: "/api/projects/file-p/environments/env-e/secrets", authorization: "Bearer cfk_stored" },
      { path: "/api/projects/file-p/environments/file-e/secrets", authorization: "Bearer cfk_stored" },
      { path: "/api/projects/flag-p/environments/env-e/secrets", authorization: "Bearer cfk_stored" },
    ])
  })

  it("says once which settings of .coffer.json it does not know, and goes on without them", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "coffer-cli-"))
    const file = join(cwd, ".coffer.json")
    writeFileSync(file, JSON.stringify({ project: "p", env: "staging", URL: "http://127.0.0.1:9" }))
    let said = ""
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
      said += String(text)
      rest.find((item) => typeof item === "function")?.()
      return true
    })
    const code = await runCli(["secrets", "list"], {
      env: { COFFER_URL: "http://127.0.0.1:9", COFFER_TOKEN: `cfk_${"s".repeat(43)}` },
      cwd,
    }).finally(() => stderr.mockRestore())
    expect([code, said]).toEqual([
      1,
      `coffer: ${file}: ignored env, URL: not a setting (it takes project, environment, url, schemasUrl)\n` +
        "coffer: no environment: pass --env, set COFFER_ENVIRONMENT, or run `coffer init`\n",
    ])
  })

  it("refuses a .coffer.json that holds a token, and a missing environment, with exit code 1", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "coffer-cli-"))
    writeFileSync(join(cwd, ".coffer.json"), JSON.stringify({ project: "p", token: "cfk_leaked" }))
    expect(
      await runCli(["secrets", "list"], { env: { COFFER_URL: "http://127.0.0.1:9", COFFER_TOKEN: "t" }, cwd }),
    ).toBe(1)
    const clean = mkdtempSync(join(tmpdir(), "coffer-cli-"))
    expect(
      await runCli(["secrets", "list", "-p", "p"], {
        env: { COFFER_URL: "http://127.0.0.1:9", COFFER_TOKEN: "t" },
        cwd: clean,
      }),
    ).toBe(1)
    expect(await runCli(["secrets", "list", "--no-such-flag"], { env: {}, cwd: clean })).toBe(1)
  })

  /** The exit code and what was said on stderr. */
  const run = async (argv: ReadonlyArray<string>, env: Record<string, string>) => {
    let said = ""
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
      said += String(text)
      rest.find((item) => typeof item === "function")?.()
      return true
    })
    const cwd = mkdtempSync(join(tmpdir(), "coffer-cli-"))
    const code = await runCli(argv, { env, cwd }).finally(() => stderr.mockRestore())
    return { code, said }
  }

  it("refuses a URL that is not one, or holds credentials, as a usage error that never prints them", async () => {
    const env = { COFFER_TOKEN: `cfk_${"s".repeat(43)}`, COFFER_ENVIRONMENT: "dev" }
    const notUrl = await run(["secrets", "list", "-p", "p", "--url", "notaurl"], env)
    expect(notUrl).toEqual({ code: 1, said: expect.stringContaining("the secrets service URL notaurl is not a URL") })
    // A host and port alone, as a server prints its address, is said to lack its scheme, not to be no http URL.
    for (const [given, shown] of [
      ["localhost:8788", "localhost:8788"],
      ["127.0.0.1:8788/", "127.0.0.1:8788"],
      ["secrets.example.com:443/coffer", "secrets.example.com:443/coffer"],
    ] as const) {
      expect(await run(["secrets", "list", "-p", "p", "--url", given], env), given).toEqual({
        code: 1,
        said: `coffer: the secrets service URL ${shown} has no scheme: give http://${shown} (or https://${shown})\n`,
      })
    }
    for (const url of ["http://ada:hunter2@127.0.0.1:9", "ada:hunter2@127.0.0.1:9", "ftp://ada:hunter2@h"]) {
      const withCredentials = await run(["secrets", "list", "-p", "p"], { ...env, COFFER_URL: url })
      expect(withCredentials.code, url).toBe(1)
      expect(withCredentials.said).not.toContain("hunter2")
      expect(withCredentials.said).not.toContain("ada")
    }
    const schemas = await run(["schemas", "list"], { COFFER_SCHEMAS_URL: "https://u:p@schemas.example.com" })
    expect(schemas.code).toBe(1)
    expect(schemas.said).toBe(
      "coffer: the schemas service URL https://schemas.example.com holds a user name or password: " +
        "leave them out (the API key is the credential)\n",
    )
  })

  it("refuses a URL ending in /api, or with a query or fragment, naming the base URL, before anything is sent", async () => {
    const { url, seen } = await recorder()
    const env = { COFFER_TOKEN: `cfk_${"s".repeat(43)}`, COFFER_ENVIRONMENT: "dev" }
    for (const [given, base] of [
      [`${url}/api`, url],
      [`${url}/api/`, url],
      [`${url}/coffer/api`, `${url}/coffer`],
      [`${url}?project=p`, url],
      [`${url}/#/keys`, url],
    ] as const) {
      expect(await run(["secrets", "list", "-p", "p", "--url", given], env), given).toEqual({
        code: 1,
        // The URL as the settings hold it: a trailing slash is dropped first.
        said: `coffer: the secrets service URL ${given.replace(/\/+$/, "").replace(/([?#]).*$/, "$1…")} is not a base URL: give ${base} (each command adds /api/… itself)\n`,
      })
    }
    // A key put in the query is not said back, where a CI log would keep it.
    const keyed = await run(["secrets", "list", "-p", "p", "--url", `${url}/?token=cfk_secret`], env)
    expect(keyed).toEqual({
      code: 1,
      said: `coffer: the secrets service URL ${url}/?… is not a base URL: give ${url} (each command adds /api/… itself)\n`,
    })
    const schemas = await run(["schemas", "list"], { COFFER_SCHEMAS_URL: `${url}/api`, COFFER_SCHEMAS_TOKEN: "cfs_x" })
    expect(schemas.code).toBe(1)
    expect(seen).toEqual([])
  })

  it("never sends COFFER_TOKEN to a server a .coffer.json in a parent folder names, and says what to set", async () => {
    const { url, seen } = await recorder()
    const root = mkdtempSync(join(tmpdir(), "coffer-cli-"))
    writeFileSync(join(root, ".coffer.json"), JSON.stringify({ url, project: "p", environment: "e" }))
    const cwd = join(root, "sub", "deeper")
    mkdirSync(cwd, { recursive: true })
    let said = ""
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
      said += String(text)
      rest.find((item) => typeof item === "function")?.()
      return true
    })
    const env = { COFFER_TOKEN: `cfk_${"s".repeat(43)}`, XDG_CONFIG_HOME: join(root, "no-config") }
    const code = await runCli(["secrets", "list"], { env, cwd }).finally(() => stderr.mockRestore())
    expect(code).toBe(2)
    expect(said).toBe(
      `coffer: COFFER_TOKEN is not sent to ${url}, which only a .coffer.json names: ` +
        `set COFFER_URL=${url} (or pass the URL's flag) to send it there\n`,
    )
    expect(seen).toEqual([])
    // Confirmed by the person, it goes.
    expect(await runCli(["secrets", "list", "--json"], { env: { ...env, COFFER_URL: url }, cwd })).toBe(0)
    expect(seen).toEqual([
      { path: "/api/projects/p/environments/e/secrets", authorization: `Bearer cfk_${"s".repeat(43)}` },
    ])
  })

  it("refuses a token with a control character as a usage error, before any request", async () => {
    const { url, seen } = await recorder()
    const pasted = await run(["secrets", "list", "-p", "p", "-e", "dev"], {
      COFFER_URL: url,
      COFFER_TOKEN: "cfk_a\u0007b",
    })
    expect(pasted).toEqual({ code: 1, said: expect.stringContaining("control character") })
    expect(seen).toEqual([])
  })
})
