/**
 * `push` and `import` against a local service that refuses one key: the failure names the key it stopped on
 * (there is no batch endpoint, so the user needs to know where), and the progress bar, when drawn, is ended. And
 * `import` against one where a key appears after the environment was read: under `fail` and `skip` it writes new
 * keys only as new ones, so that key is not overwritten. A pair the service's rules refuse, or input that is not
 * UTF-8 text, stops `push`, `import` and `set` before their first write.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { afterEach, describe, expect, it, vi } from "vitest"
import { runCli } from "../main.js"
import { runCaught } from "../testing/caughtRun.js"

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

/** A write key's identity, which push and import read before they write. */
const WRITE_KEY = {
  user: { id: "u1", email: "ada@example.com" },
  apiKey: { id: "k1", scope: "write", expiresAt: null, project: { id: "p1", slug: "app", name: "App" } },
}

/** What a test's local service was asked to write. */
type Written = { readonly key: string; readonly value: string; readonly expectedVersion?: number }

/**
 * An empty environment (its export is `{}`) on a local port, reached with a write key, that answers each write with
 * `answer(written)`: an error's status and body, or `undefined` to take it. Returns its URL and every write it got.
 */
const emptyEnvironment = async (answer: (written: Written) => readonly [number, object] | undefined) => {
  const writes: Array<Written> = []
  const server = createServer((request, response) => {
    response.setHeader("content-type", "application/json")
    if (request.method === "GET") return response.end(request.url === "/api/auth/me" ? JSON.stringify(WRITE_KEY) : "{}")
    let body = ""
    request.on("data", (chunk) => {
      body += chunk
    })
    request.on("end", () => {
      const written = JSON.parse(body) as Written
      writes.push(written)
      const refusal = answer(written)
      if (refusal === undefined) return response.end(JSON.stringify({ action: "created", version: 1 }))
      response.statusCode = refusal[0]
      response.end(JSON.stringify(refusal[1]))
    })
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, writes }
}

/** Refuses to write `BAD.KEY` and takes every other key. */
const refusingOneKey = async () =>
  (
    await emptyEnvironment(({ key }) =>
      key === "BAD.KEY" ? ([400, { error: "the key is not valid" }] as const) : undefined,
    )
  ).url

/**
 * `LATE` is created by someone else right after the export was read: a write of it with `expectedVersion` 0 is
 * refused as the service refuses it; every other write is taken.
 */
const addedMeanwhile = () =>
  emptyEnvironment(({ key, expectedVersion }) =>
    key === "LATE" && expectedVersion === 0
      ? ([409, { error: "LATE exists already (version 1): it was expected not to exist", currentVersion: 1 }] as const)
      : undefined,
  )

const byKey = (writes: ReadonlyArray<Written>) => [...writes].sort((a, b) => (a.key < b.key ? -1 : 1))

/** Runs the command with stdout and stderr caught: its exit code and what it said on each. */
const quietly = runCaught

describe("import of a key someone adds while it runs", () => {
  const file = () => {
    const cwd = mkdtempSync(join(tmpdir(), "coffer-import-"))
    writeFileSync(join(cwd, "in.env"), "EARLY=1\nLATE=2\n")
    return { cwd, path: join(cwd, "in.env") }
  }

  it("skips it under skip, stops on it under fail (exit 4), and writes over it only under overwrite", async () => {
    const { cwd, path } = file()
    const skip = await addedMeanwhile()
    const skipped = await quietly(["secrets", "import", path, "--on-conflict", "skip", "--json"], skip.url, cwd)
    expect([skipped.code, JSON.parse(skipped.out)]).toEqual([
      0,
      { add: ["EARLY"], change: [], remove: [], skipped: ["LATE"] },
    ])
    // Sent eight at a time: in any order.
    expect(byKey(skip.writes)).toEqual([
      { key: "EARLY", value: "1", expectedVersion: 0 },
      { key: "LATE", value: "2", expectedVersion: 0 },
    ])

    const fail = await addedMeanwhile()
    const failed = await quietly(["secrets", "import", path], fail.url, cwd)
    expect([failed.code, failed.err]).toEqual([
      4,
      "coffer: LATE: added by someone else during the import, so it was not overwritten; the keys written so far " +
        "stay (run the import again to finish)\n",
    ])

    const overwrite = await addedMeanwhile()
    const overwritten = await quietly(["secrets", "import", path, "--on-conflict", "overwrite"], overwrite.url, cwd)
    expect(overwritten.code).toBe(0)
    expect(byKey(overwrite.writes)).toEqual([
      { key: "EARLY", value: "1" },
      { key: "LATE", value: "2" },
    ])
  })
})

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

  // A pair the service's rules refuse would stop the writes halfway, and every later run at the same pair.
  it.each([
    ["push", ["push", "in.json"], '{"GOOD":"1","bad key":"2","LAST":"3"}', "bad key"],
    ["import", ["import", "in.json"], `{"GOOD":"1","HUGE":"${"x".repeat(70_000)}"}`, "HUGE"],
    ["set", ["set", "GOOD=1", "bad key=2", "LAST=3"], "{}", "bad key"],
  ])("%s refuses before writing anything when a pair breaks the service's rules", async (_, argv, text, key) => {
    const { url, writes } = await addedMeanwhile()
    const cwd = mkdtempSync(join(tmpdir(), "coffer-push-"))
    writeFileSync(join(cwd, "in.json"), text)
    const args = argv.map((arg) => (arg === "in.json" ? join(cwd, arg) : arg))
    const outcome = await quietly(["secrets", ...args], url, cwd)
    expect([outcome.code, writes]).toEqual([1, []])
    expect(outcome.err).toMatch(new RegExp(`^coffer: ${key}: .+; nothing was written\n$`))
    expect(outcome.err).not.toContain("xxx")
  })

  // Decoding with replacement would store U+FFFD for every byte that is not UTF-8, and say nothing.
  it.each([
    ["push", "bytes that are not UTF-8", Buffer.from("A=ab\xff\n", "latin1"), "in.env is not UTF-8 text"],
    ["push", "UTF-16 (PowerShell's >)", Buffer.from("\ufeffA=1\n", "utf16le"), "in.env is UTF-16 text"],
    ["set", "bytes that are not UTF-8 on stdin", Buffer.from([0x61, 0xff, 0xfe]), "stdin is not UTF-8 text"],
  ])("%s refuses %s before writing anything", async (command, _, bytes, message) => {
    const { url, writes } = await addedMeanwhile()
    const cwd = mkdtempSync(join(tmpdir(), "coffer-push-"))
    writeFileSync(join(cwd, "in.env"), bytes)
    const piped = Object.assign(new PassThrough(), { isTTY: false })
    piped.end(bytes)
    vi.spyOn(process, "stdin", "get").mockReturnValue(piped as unknown as typeof process.stdin)
    const argv = command === "push" ? ["push", join(cwd, "in.env")] : ["set", "BIN"]
    const outcome = await quietly(["secrets", ...argv], url, cwd).finally(() => vi.restoreAllMocks())
    expect([outcome.code, writes]).toEqual([1, []])
    expect(outcome.err).toContain(message)
  })
})

describe("push --prune of an input with no keys", () => {
  // An empty input is most often a generator that failed upstream: with --prune it would empty the environment.
  it.each([
    ["an empty file", ""],
    ["a file of comments", "# nothing here yet\n\n"],
  ])("refuses %s before reading or writing anything (exit 1)", async (_, text) => {
    let requests = 0
    const server = createServer((_request, response) => {
      requests++
      response.setHeader("content-type", "application/json")
      response.end(JSON.stringify(WRITE_KEY))
    })
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
    closers.push(() => server.close())
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const cwd = mkdtempSync(join(tmpdir(), "coffer-push-"))
    writeFileSync(join(cwd, "in.env"), text)
    const pruned = await quietly(["secrets", "push", join(cwd, "in.env"), "--prune", "--yes"], url, cwd)
    expect([pruned.code, requests]).toEqual([1, 0])
    expect(pruned.err).toMatch(
      /in\.env holds no keys: with --prune that would delete every key of the environment; nothing was changed/,
    )
  })
})
