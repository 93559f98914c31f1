/**
 * A URL that reaches a web page instead of the API (a path copied from the browser, where the web app answers
 * every path with its page): no command takes the page for an answer, `pull` least of all, whose `.env` export is
 * text and would otherwise be the page, printed or written to the file with exit 0.
 */
import { existsSync, mkdtempSync } from "node:fs"
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

describe("an answer that is a web page", () => {
  it.each([
    [["secrets", "pull", "--output", "dev.env"]],
    [["secrets", "pull", "--format", "json"]],
    [["secrets", "get", "A"]],
  ])("%j fails with 5 and says the URL is not the service's base URL", async (argv) => {
    const server = createServer((_request, response) => {
      response.setHeader("content-type", "text/html; charset=utf-8")
      response.end("<!doctype html><title>Coffer Secrets</title>")
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    closers.push(() => server.close())
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/projects/app`
    const cwd = mkdtempSync(join(tmpdir(), "coffer-page-"))
    let said = ""
    const writes = (chunk: unknown, ...rest: Array<unknown>) => {
      said += String(chunk)
      ;(rest.find((item) => typeof item === "function") as (() => void) | undefined)?.()
      return true
    }
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(writes)
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(writes)
    const output = join(cwd, "dev.env")
    const code = await runCli(
      argv.map((arg) => (arg === "dev.env" ? output : arg)),
      {
        env: {
          COFFER_URL: url,
          COFFER_TOKEN: `cfk_${"s".repeat(43)}`,
          COFFER_PROJECT: "app",
          COFFER_ENVIRONMENT: "dev",
        },
        cwd,
      },
    ).finally(() => {
      stderr.mockRestore()
      stdout.mockRestore()
    })
    expect([code, said]).toEqual([
      5,
      `coffer: ${url} answered with a web page, not Coffer's API: give the service's base URL (http(s)://HOST[:PORT], no path)\n`,
    ])
    expect(existsSync(output)).toBe(false)
  })
})
