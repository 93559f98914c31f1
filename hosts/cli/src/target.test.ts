/**
 * What a command says when the environment or project is not named: the ways to name it, and `coffer init` among
 * them except when `init` is what is running (it cannot be the answer to itself). And `init` without a key says that
 * what it wrote was not checked.
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

/** A service whose key reaches two projects, so none is the default. */
const twoProjects = async () => {
  const project = (slug: string) => ({ id: slug, name: slug, slug, role: "owner" })
  const server = createServer((_request, response) => {
    response.setHeader("content-type", "application/json")
    response.end(JSON.stringify({ projects: [project("app"), project("web")] }))
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** The exit code and stderr of `argv`, run in an empty directory with no user config. */
const said = async (argv: ReadonlyArray<string>, env: Record<string, string>) => {
  const cwd = mkdtempSync(join(tmpdir(), "coffer-target-"))
  let text = ""
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
    text += String(chunk)
    rest.find((item) => typeof item === "function")?.()
    return true
  })
  const code = await runCli(argv, { env: { ...env, XDG_CONFIG_HOME: join(cwd, "config") }, cwd }).finally(() =>
    stderr.mockRestore(),
  )
  return [code, text] as const
}

describe("a missing environment or project", () => {
  it("points other commands to coffer init, and init to its flags", async () => {
    const env = { COFFER_URL: await twoProjects(), COFFER_TOKEN: `cfk_${"s".repeat(43)}` }
    expect(await said(["secrets", "list"], env)).toEqual([
      1,
      "coffer: no environment: pass --env, set COFFER_ENVIRONMENT, or run `coffer init`\n",
    ])
    expect(await said(["init"], env)).toEqual([1, "coffer: no environment: pass --env or set COFFER_ENVIRONMENT\n"])
    expect(await said(["secrets", "list", "-e", "dev"], env)).toEqual([
      1,
      "coffer: no project: pass --project, set COFFER_PROJECT, or run `coffer init`\n",
    ])
    expect(await said(["init", "-e", "dev"], env)).toEqual([
      1,
      "coffer: no project: pass --project or set COFFER_PROJECT\n",
    ])
  })

  it("init without a key writes the file and says it was not checked", async () => {
    const outcome = await said(["init", "-p", "app", "-e", "dev"], { COFFER_URL: "http://127.0.0.1:9" })
    expect(outcome).toEqual([
      0,
      expect.stringMatching(
        /^coffer: wrote .*\.coffer\.json \(not checked against the service: no API key for http:\/\/127\.0\.0\.1:9\); commit it/,
      ),
    ])
  })
})
