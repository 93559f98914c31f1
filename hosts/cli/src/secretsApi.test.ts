/**
 * After a 404, what was looked for, and the project the API key does reach when another was asked for (the
 * service answers the same for a missing project and one out of the key's reach), whatever the message's words.
 */
import { mkdtempSync } from "node:fs"
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

/** A service whose key reaches project `app`, and which knows no other project; `projectMissing` is its 404's words. */
const keyOfApp = async (projectMissing = "Project not found") => {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "application/json")
    if (request.url === "/api/auth/me")
      return response.end(
        JSON.stringify({
          user: { id: "u1", email: "ada@example.com" },
          apiKey: { id: "k1", scope: "write", expiresAt: null, project: { id: "p1", slug: "app", name: "App" } },
        }),
      )
    response.statusCode = 404
    response.end(
      JSON.stringify({ error: request.url?.includes("/projects/app/") ? "Secret not found" : projectMissing }),
    )
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const said = async (argv: ReadonlyArray<string>, url: string) => {
  const cwd = mkdtempSync(join(tmpdir(), "coffer-api-"))
  let text = ""
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
    text += String(chunk)
    rest.find((item) => typeof item === "function")?.()
    return true
  })
  const env = { COFFER_URL: url, COFFER_TOKEN: `cfk_${"s".repeat(43)}`, XDG_CONFIG_HOME: join(cwd, "config") }
  const code = await runCli(argv, { env, cwd }).finally(() => stderr.mockRestore())
  return [code, text] as const
}

describe("a 404", () => {
  it("names the project the key reaches when another was asked for", async () => {
    const url = await keyOfApp()
    expect(await said(["secrets", "list", "-p", "other", "-e", "dev"], url)).toEqual([
      3,
      "coffer: Project not found (other/dev): this API key reaches project app only\n",
    ])
    expect(await said(["secrets", "get", "A", "-p", "app", "-e", "dev"], url)).toEqual([
      3,
      "coffer: Secret not found (A in app/dev)\n",
    ])
  })

  it("reads which project is out of reach from the key, not from the message's words", async () => {
    const url = await keyOfApp("Projekt nicht gefunden")
    expect(await said(["secrets", "list", "-p", "other", "-e", "dev"], url)).toEqual([
      3,
      "coffer: Projekt nicht gefunden (other/dev): this API key reaches project app only\n",
    ])
  })
})
