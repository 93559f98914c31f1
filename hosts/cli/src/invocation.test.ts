/**
 * An empty flag (`--env "$UNSET"`) is refused before any request, rather than read as absent and replaced by
 * `.coffer.json`'s environment. A token of the other service (a schemas token in COFFER_TOKEN, an API key in COFFER_SCHEMAS_TOKEN) is refused
 * with exit 2 before any request, naming the mix-up rather than passing on the service's "invalid key".
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { runCli } from "./main.js"

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

const API_KEY = `cfk_${"k".repeat(43)}`
const SCHEMAS_TOKEN = `cfs_${"t".repeat(43)}`

/** `coffer <argv>` in process, with what it says on stderr. */
const saidBy = async (argv: ReadonlyArray<string>, options: Parameters<typeof runCli>[1]) => {
  let said = ""
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
    said += String(chunk)
    rest.find((item) => typeof item === "function")?.()
    return true
  })
  const code = await runCli([...argv], options).finally(() => stderr.mockRestore())
  return { code, said }
}

describe("a token of the other service", () => {
  it.each([
    [
      ["secrets", "list", "-p", "app", "-e", "dev"],
      { COFFER_TOKEN: SCHEMAS_TOKEN },
      "COFFER_URL",
      "is a schemas token (cfs_…): secrets commands need a project API key (cfk_…)",
    ],
    [["whoami"], { COFFER_TOKEN: SCHEMAS_TOKEN }, "COFFER_URL", "is a schemas token (cfs_…)"],
    [
      ["schemas", "list"],
      { COFFER_SCHEMAS_TOKEN: API_KEY },
      "COFFER_SCHEMAS_URL",
      "is a secrets API key (cfk_…): schemas commands need a schemas token (cfs_…)",
    ],
  ])("%j is refused before any request", async (argv, tokens, urlVariable, message) => {
    const requests: Array<string> = []
    const server = createServer((request, response) => {
      requests.push(request.url ?? "")
      response.statusCode = 401
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify({ error: "Invalid API key" }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    closers.push(() => server.close())
    const cwd = mkdtempSync(join(tmpdir(), "coffer-kind-"))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const { code, said } = await saidBy(argv, {
      env: { ...tokens, [urlVariable]: url, XDG_CONFIG_HOME: join(cwd, "config") },
      cwd,
    })
    expect([code, requests]).toEqual([2, []])
    expect(said).toContain(message)
    expect(said).not.toContain("kkkk")
    expect(said).not.toContain("tttt")
  })
})

describe("an empty flag", () => {
  it.each([["--env"], ["--project"], ["--url"]])("%s is refused before any request", async (flag) => {
    const requests: Array<string> = []
    const server = createServer((request, response) => {
      requests.push(request.url ?? "")
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify({ secrets: [] }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    closers.push(() => server.close())
    const cwd = mkdtempSync(join(tmpdir(), "coffer-empty-"))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    writeFileSync(join(cwd, ".coffer.json"), JSON.stringify({ project: "app", environment: "development", url }))
    const { code, said } = await saidBy(["secrets", "list", flag, ""], {
      env: { COFFER_TOKEN: API_KEY, XDG_CONFIG_HOME: join(cwd, "config") },
      cwd,
    })
    expect([code, requests, said]).toEqual([
      1,
      [],
      `coffer: ${flag} is empty: give it a value, or leave the flag out\n`,
    ])
  })
})

describe("no credential for the URL given", () => {
  it.each([
    [["whoami", "--url", "http://127.0.0.1:19799"], "coffer login --url http://127.0.0.1:19799"],
    [
      ["schemas", "list", "--schemas-url", "http://127.0.0.1:19798"],
      "coffer login --schemas-url http://127.0.0.1:19798",
    ],
  ])("%j names the login that stores one for that URL, not the default's", async (argv, hint) => {
    const cwd = mkdtempSync(join(tmpdir(), "coffer-none-"))
    const { code, said } = await saidBy(argv, { env: { XDG_CONFIG_HOME: join(cwd, "config") }, cwd })
    expect(code).toBe(2)
    expect(said).toContain(`run \`${hint}\``)
  })
})
