/**
 * `logout` says what it did: which stored keys it forgot, that there were none (and, with `--all`, not "for this
 * service"), and that a token variable still set keeps the commands signed in. `login` given a key with the other
 * service's URL flag says which flag the key needs.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { describe, expect, it, vi } from "vitest"
import { runCli } from "../main.js"

const SECRETS = "http://127.0.0.1:9"
const SCHEMAS = "http://127.0.0.1:10"

/** The exit code and stderr of `coffer logout …` with a config file holding `tokens`. */
const logout = async (
  argv: ReadonlyArray<string>,
  tokens: Record<string, string> | undefined,
  env: Record<string, string> = {},
) => {
  const home = mkdtempSync(join(tmpdir(), "coffer-logout-"))
  if (tokens !== undefined) {
    mkdirSync(join(home, "coffer"))
    writeFileSync(join(home, "coffer", "config.json"), JSON.stringify({ url: SECRETS, schemasUrl: SCHEMAS, tokens }))
  }
  let said = ""
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
    said += String(chunk)
    rest.find((item) => typeof item === "function")?.()
    return true
  })
  const code = await runCli(["logout", ...argv], { env: { ...env, XDG_CONFIG_HOME: home }, cwd: home }).finally(() =>
    stderr.mockRestore(),
  )
  return [code, said] as const
}

describe("logout", () => {
  it("names what it forgot, and what it could not", async () => {
    const both = { [SECRETS]: `cfk_${"k".repeat(43)}`, [SCHEMAS]: `cfs_${"t".repeat(43)}` }
    expect(await logout([], both)).toEqual([
      0,
      `coffer: forgot the stored keys for ${SECRETS}, ${SCHEMAS} (revoke them in the web app if leaked)\n`,
    ])
    expect(await logout(["--all"], {})).toEqual([0, "coffer: no stored keys\n"])
    expect(await logout([], {})).toEqual([0, `coffer: no stored key for ${SECRETS}, ${SCHEMAS}\n`])
  })

  it("forgets a key an earlier version stored under another case of the URL", async () => {
    const upper = SECRETS.replace("http", "HTTP")
    expect(await logout(["--url", SECRETS.toUpperCase()], { [upper]: `cfk_${"k".repeat(43)}` })).toEqual([
      0,
      `coffer: forgot the stored key for ${upper} (revoke it in the web app if leaked)\n`,
    ])
  })

  it("says that a token variable still set is still used", async () => {
    const env = { COFFER_TOKEN: `cfk_${"k".repeat(43)}` }
    expect(await logout(["--all"], { [SECRETS]: env.COFFER_TOKEN }, env)).toEqual([
      0,
      `coffer: forgot the stored key for ${SECRETS} (revoke it in the web app if leaked); COFFER_TOKEN is still set, and used\n`,
    ])
    expect(await logout([], undefined, env)).toEqual([
      0,
      "coffer: no stored keys; COFFER_TOKEN is still set, and used\n",
    ])
  })
})

describe("login with the other service's URL flag", () => {
  /** The exit code and stderr of `coffer login …` given `key` on stdin, with no config file. */
  const login = async (argv: ReadonlyArray<string>, key: string) => {
    const home = mkdtempSync(join(tmpdir(), "coffer-login-"))
    const piped = Object.assign(new PassThrough(), { isTTY: false })
    piped.end(`${key}\n`)
    vi.spyOn(process, "stdin", "get").mockReturnValue(piped as unknown as typeof process.stdin)
    let said = ""
    vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
      said += String(chunk)
      rest.find((item) => typeof item === "function")?.()
      return true
    })
    const code = await runCli(["login", ...argv], { env: { XDG_CONFIG_HOME: home }, cwd: home }).finally(() =>
      vi.restoreAllMocks(),
    )
    return [code, said] as const
  }

  it("names the flag the key needs, and says nothing of the other flag when none was given", async () => {
    expect(await login(["--url", SCHEMAS], `cfs_${"t".repeat(43)}`)).toEqual([
      1,
      "coffer: no schemas service URL: pass --schemas-url or set COFFER_SCHEMAS_URL; this is a schemas token (cfs_…), and --url is for the secrets service\n",
    ])
    expect(await login(["--schemas-url", SECRETS], `cfk_${"k".repeat(43)}`)).toEqual([
      1,
      "coffer: no secrets service URL: pass --url or set COFFER_URL; this is a secrets API key (cfk_…), and --schemas-url is for the schemas service\n",
    ])
    expect(await login([], `cfs_${"t".repeat(43)}`)).toEqual([
      1,
      "coffer: no schemas service URL: pass --schemas-url or set COFFER_SCHEMAS_URL\n",
    ])
  })
})

describe("login while COFFER_TOKEN holds another key", () => {
  it("says that commands go on using that key, and nothing when it holds this one", async () => {
    const server = createServer((_request, response) => {
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify({ user: { id: "u1", email: "ada@example.com" } }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const key = `cfk_${"n".repeat(43)}`
    const login = async (env: Record<string, string>) => {
      const home = mkdtempSync(join(tmpdir(), "coffer-login-"))
      const piped = Object.assign(new PassThrough(), { isTTY: false })
      piped.end(`${key}\n`)
      vi.spyOn(process, "stdin", "get").mockReturnValue(piped as unknown as typeof process.stdin)
      let said = ""
      vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
        said += String(chunk)
        rest.find((item) => typeof item === "function")?.()
        return true
      })
      const code = await runCli(["login", "--url", url], { env: { ...env, XDG_CONFIG_HOME: home }, cwd: home }).finally(
        () => vi.restoreAllMocks(),
      )
      return [code, said.replace(home, "HOME")] as const
    }
    const stored = `coffer: logged in to ${url} as ada@example.com; key stored in HOME/coffer/config.json`
    try {
      expect(await login({ COFFER_TOKEN: `cfk_${"o".repeat(43)}` })).toEqual([
        0,
        `${stored}; COFFER_TOKEN is set, and commands use its key instead: unset it to use this one\n`,
      ])
      expect(await login({ COFFER_TOKEN: `${key}\n` })).toEqual([0, `${stored}\n`])
      expect(await login({})).toEqual([0, `${stored}\n`])
    } finally {
      server.close()
    }
  })
})

describe("login --web --name", () => {
  it("refuses a name the service would refuse before any request, naming --name, and sends a good one trimmed", async () => {
    const bodies: Array<string> = []
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => {
        body += String(chunk)
      })
      request.on("end", () => {
        bodies.push(body)
        response.statusCode = 503
        response.setHeader("content-type", "application/json")
        response.end(JSON.stringify({ error: "Service unavailable" }))
      })
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const login = async (name: string) => {
      const home = mkdtempSync(join(tmpdir(), "coffer-login-web-"))
      let said = ""
      vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
        said += String(chunk)
        rest.find((item) => typeof item === "function")?.()
        return true
      })
      const code = await runCli(["login", "--web", "--no-browser", "--url", url, "--name", name], {
        env: { XDG_CONFIG_HOME: home },
        cwd: home,
      }).finally(() => vi.restoreAllMocks())
      return [code, said] as const
    }
    try {
      expect(await login("")).toEqual([1, "coffer: --name must not be empty\n"])
      expect(await login("  \t ")).toEqual([1, "coffer: --name must not be empty\n"])
      expect(await login("x".repeat(65))).toEqual([1, "coffer: --name must be at most 64 characters, got 65\n"])
      expect(await login("lap\u202Etop")).toEqual([
        1,
        "coffer: --name must not contain control, formatting or invisible characters; found U+202E\n",
      ])
      expect(bodies).toEqual([])
      const [code] = await login(" laptop ")
      expect(code).toBe(5)
      expect(bodies.map((body) => JSON.parse(body))).toEqual([{ name: "laptop" }])
    } finally {
      server.close()
    }
  })
})
