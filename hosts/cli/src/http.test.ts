/**
 * A URL that reaches a web page instead of the API (a path copied from the browser, where the web app answers
 * every path with its page): no command takes the page for an answer, `pull` least of all, whose `.env` export is
 * text and would otherwise be the page, printed or written to the file with exit 0. Nor is an error status from
 * another server read as Coffer's: its 404 is no missing environment.
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

/** A server that answers every request with `status`, `type` and `body`; its URL. */
const answering = async (status: number, type: string | undefined, body: string) => {
  const server = createServer((_request, response) => {
    response.statusCode = status
    if (type !== undefined) response.setHeader("content-type", type)
    response.end(body)
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** `coffer run --url url -- true` for acme-web/development: its exit code and what it said. */
const runAgainst = async (url: string) => {
  let said = ""
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
    said += String(chunk)
    ;(rest.find((item) => typeof item === "function") as (() => void) | undefined)?.()
    return true
  })
  const code = await runCli(["run", "--url", url, "-p", "acme-web", "-e", "development", "--", "true"], {
    env: { COFFER_TOKEN: `cfk_${"s".repeat(43)}` },
    cwd: mkdtempSync(join(tmpdir(), "coffer-other-")),
  }).finally(() => stderr.mockRestore())
  return { code, said }
}

describe("an error answer that is not Coffer's", () => {
  it.each([
    [404, undefined, "", ""],
    [404, "text/html", "<!doctype html><h1>Not Found</h1>", " with a web page"],
    [404, "application/json", JSON.stringify({ message: "Not Found", statusCode: 404 }), ""],
    [404, "application/json", JSON.stringify([{ error: "Not Found" }]), ""],
    [404, "text/plain", JSON.stringify({ error: "Not Found" }), ""],
    [401, "text/plain", "Unauthorized", ""],
    [403, "text/html", "<h1>Forbidden</h1>", " with a web page"],
  ])("%i as %s (%s) fails with 5, naming the URL, not the environment", async (status, type, body, page) => {
    const url = await answering(status, type, body)
    const reason = `${status === 404 ? "Not Found" : status === 401 ? "Unauthorized" : "Forbidden"}`
    expect(await runAgainst(url)).toEqual({
      code: 5,
      said: `coffer: ${url} answered HTTP ${status} ${reason}${page}, not as Coffer's API does: give the service's base URL (http(s)://HOST[:PORT], no path)\n`,
    })
  })

  it("a redirect is not followed: 5, naming where it points, and nothing reaches that server", async () => {
    let reached = 0
    const elsewhere = createServer((_request, response) => {
      reached++
      response.end()
    })
    await new Promise<void>((ready) => elsewhere.listen(0, "127.0.0.1", ready))
    closers.push(() => elsewhere.close())
    const target = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`
    for (const status of [301, 302, 307, 308]) {
      const server = createServer((_request, response) => {
        response.writeHead(status, { location: `${target}/api/projects?token=x` })
        response.end()
      })
      await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
      closers.push(() => server.close())
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      expect(await runAgainst(url)).toEqual({
        code: 5,
        said:
          `coffer: ${url} answered HTTP ${status}, a redirect to ${target}/api/projects: commands follow no ` +
          "redirect (the key and what is sent would go with it); give the URL the service is at\n",
      })
    }
    expect(reached).toBe(0)
  })

  it("a 5xx page may be a proxy in front of the service: 5, without calling the URL wrong", async () => {
    const url = await answering(502, "text/html", "<h1>Bad Gateway</h1>")
    expect(await runAgainst(url)).toEqual({
      code: 5,
      said: `coffer: ${url} answered HTTP 502 Bad Gateway with a web page, not as Coffer's API does: a proxy in front of the service, or another server\n`,
    })
  })

  it("Coffer's own 404 is still read as one: 3, naming what was looked for", async () => {
    const url = await answering(
      404,
      "application/json; charset=UTF-8",
      JSON.stringify({ error: "Environment not found" }),
    )
    expect(await runAgainst(url)).toEqual({
      code: 3,
      said: "coffer: Environment not found (acme-web/development)\n",
    })
  })
})

describe("an empty name", () => {
  it.each([
    [["secrets", "get", ""]],
    [["secrets", "history", ""]],
    [["secrets", "restore", "", "-v", "1"]],
    [["environments", "delete", "", "--yes"]],
    [["secrets", "diff", "--env2", ""]],
  ])("%j fails with 1 before any request, not as a missing resource (3)", async (argv) => {
    let requests = 0
    const server = createServer((_request, response) => {
      requests++
      response.statusCode = 404
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify({ error: "Not found" }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    closers.push(() => server.close())
    let said = ""
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
      said += String(chunk)
      ;(rest.find((item) => typeof item === "function") as (() => void) | undefined)?.()
      return true
    })
    const code = await runCli(argv, {
      env: {
        COFFER_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        COFFER_TOKEN: `cfk_${"s".repeat(43)}`,
        COFFER_PROJECT: "app",
        COFFER_ENVIRONMENT: "dev",
      },
      cwd: mkdtempSync(join(tmpdir(), "coffer-empty-")),
    }).finally(() => stderr.mockRestore())
    expect([code, said, requests]).toEqual([
      1,
      "coffer: a project, environment, key or platform name given is empty: give one\n",
      0,
    ])
  })
})

describe("an https:// URL of a service that answers plain HTTP", () => {
  it("fails with 5, saying what the TLS handshake met, not only OpenSSL's code", async () => {
    const server = createServer((_request, response) => response.end())
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    closers.push(() => server.close())
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
    let said = ""
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
      said += String(chunk)
      ;(rest.find((item) => typeof item === "function") as (() => void) | undefined)?.()
      return true
    })
    const code = await runCli(["secrets", "list"], {
      env: { COFFER_URL: url, COFFER_TOKEN: `cfk_${"s".repeat(43)}`, COFFER_PROJECT: "app", COFFER_ENVIRONMENT: "dev" },
      cwd: mkdtempSync(join(tmpdir(), "coffer-tls-")),
    }).finally(() => stderr.mockRestore())
    // OpenSSL's code depends on its version (ERR_SSL_WRONG_VERSION_NUMBER on Node 20's).
    expect(code).toBe(5)
    expect(said).toMatch(
      new RegExp(
        `^coffer: cannot reach ${url}: ERR_SSL_\\w+: it answers plain HTTP there, not TLS \\(an http:// URL\\?\\)\\n$`,
      ),
    )
  })
})

describe("a server's error message holding control characters", () => {
  it("is printed with them written out, so that no escape sequence reaches the terminal", async () => {
    const server = createServer((_request, response) => {
      response.statusCode = 404
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify({ error: "Not \u001b[8mfound\u001b]0;title\u0007 \u009b2J" }))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    closers.push(() => server.close())
    let said = ""
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
      said += String(chunk)
      ;(rest.find((item) => typeof item === "function") as (() => void) | undefined)?.()
      return true
    })
    const code = await runCli(["secrets", "get", "A"], {
      env: {
        COFFER_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        COFFER_TOKEN: `cfk_${"s".repeat(43)}`,
        COFFER_PROJECT: "app",
        COFFER_ENVIRONMENT: "dev",
      },
      cwd: mkdtempSync(join(tmpdir(), "coffer-controls-")),
    }).finally(() => stderr.mockRestore())
    expect(code).toBe(3)
    expect(said).toContain("Not \\u001b[8mfound\\u001b]0;title\\u0007 \\u009b2J")
    expect(said).not.toMatch(/\p{Cc}(?!$)/u)
  })
})
