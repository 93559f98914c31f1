/**
 * `push` and `import` against a local service that refuses one key: the failure names the key it stopped on
 * (there is no batch endpoint, so the user needs to know where), and the progress bar, when drawn, is ended.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { runCli } from "../main.js"

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

/** A write key's identity, which push and import read before they write. */
const WRITE_KEY = {
  user: { id: "u1", email: "ada@example.com" },
  apiKey: { id: "k1", scope: "write", expiresAt: null, project: { id: "p1", slug: "app", name: "App" } },
}

/** An empty environment that refuses to write `BAD.KEY` and accepts every other key. */
const refusingOneKey = async () => {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "application/json")
    if (request.method === "GET") return response.end(request.url === "/api/auth/me" ? JSON.stringify(WRITE_KEY) : "{}")
    let body = ""
    request.on("data", (chunk) => {
      body += chunk
    })
    request.on("end", () => {
      const { key } = JSON.parse(body) as { key: string }
      if (key !== "BAD.KEY") return response.end(JSON.stringify({ action: "created", version: 1 }))
      response.statusCode = 400
      response.end(JSON.stringify({ error: "the key is not valid" }))
    })
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe("push and import failures", () => {
  it.each(["push", "import"])("%s names the key the service refused", async (command) => {
    const url = await refusingOneKey()
    const cwd = mkdtempSync(join(tmpdir(), "coffer-push-"))
    writeFileSync(join(cwd, "in.env"), "GOOD=1\nBAD.KEY=2\n")
    let said = ""
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
      said += String(text)
      rest.find((item) => typeof item === "function")?.()
      return true
    })
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation((_text, ...rest) => {
      rest.find((item) => typeof item === "function")?.()
      return true
    })
    const code = await runCli(["secrets", command, join(cwd, "in.env"), "-p", "app", "-e", "dev"], {
      env: { COFFER_URL: url, COFFER_TOKEN: `cfk_${"s".repeat(43)}` },
      cwd,
    }).finally(() => {
      stderr.mockRestore()
      stdout.mockRestore()
    })
    expect([code, said]).toEqual([1, "coffer: BAD.KEY: the key is not valid\n"])
  })
})
