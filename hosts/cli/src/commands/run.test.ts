/**
 * `secrets run --only`: which keys reach the child; a list that names no key is refused, never read as "all". A
 * value no environment can carry is left out and named by its key, or refused when `--only` names it, at every
 * start of a `--watch` run too.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { runCli } from "../main.js"
import { onlyKeys, pick } from "./run.js"

const values = { A: "1", B: "2", C: "3" }

describe("--only", () => {
  it("trims names, splits on commas, and passes those keys only", async () => {
    const wanted = await Effect.runPromise(onlyKeys([" A", "B , C,"]))
    expect(wanted).toEqual(["A", "B", "C"])
    expect(await Effect.runPromise(pick(values, wanted))).toEqual(values)
    expect(await Effect.runPromise(pick(values, ["A"]))).toEqual({ A: "1" })
    expect(await Effect.runPromise(pick(values, undefined))).toEqual(values)
    expect(await Effect.runPromise(onlyKeys([]))).toBeUndefined()
  })

  it.each([[[""]], [[","]], [[" , "]], [["", ""]]])("refuses %j as a usage error", async (only) => {
    const failure = await Effect.runPromise(Effect.flip(onlyKeys(only)))
    expect(failure.kind).toBe("usage")
  })

  it("fails with 1 before any request when --only names no key", async () => {
    const code = await runCli(["secrets", "run", "--only", "", "--", "true"], {
      env: { COFFER_URL: "http://127.0.0.1:9", COFFER_TOKEN: `cfk_${"s".repeat(43)}`, COFFER_ENVIRONMENT: "dev" },
    })
    expect(code).toBe(1)
  })
})

interface State {
  readonly version: number
  readonly values: Record<string, string>
}

/** A server for project app, environment dev whose list and JSON export are `state()`'s at each request; its URL. */
const serving = async (state: () => State) => {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "application/json")
    const { version, values } = state()
    if (request.url?.endsWith("/secrets/json")) return response.end(JSON.stringify(values))
    const at = "2026-11-28T00:00:00.000Z"
    const secrets = Object.keys(values).map((key) => ({ id: key, key, version, createdAt: at, updatedAt: at }))
    response.end(JSON.stringify({ secrets }))
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/**
 * `coffer secrets run … -- node -e <script> FILE` against `url`, the child appending the variables it got to FILE
 * (one JSON line per start) and, at its first start when `holdFirst`, running until it is stopped.
 */
const runRecording = async (
  url: string,
  flags: ReadonlyArray<string>,
  holdFirst = false,
  shell: Readonly<Record<string, string>> = {},
) => {
  const file = join(mkdtempSync(join(tmpdir(), "coffer-run-")), "ran")
  const script = [
    "const fs = require('fs')",
    "const { OK, BINARY, ZERO } = process.env",
    "fs.appendFileSync(process.argv[1], JSON.stringify({ OK, BINARY, ZERO }) + '\\n')",
    `if (${holdFirst} && fs.readFileSync(process.argv[1], 'utf8').split('\\n').length === 2) setInterval(() => {}, 1000)`,
  ].join("; ")
  let said = ""
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
    said += String(text)
    rest.find((item) => typeof item === "function")?.()
    return true
  })
  const code = await runCli(["secrets", "run", "-p", "app", "-e", "dev", ...flags, "--", node, "-e", script, file], {
    env: { ...shell, COFFER_URL: url, COFFER_TOKEN: `cfk_${"s".repeat(43)}` },
  }).finally(() => stderr.mockRestore())
  const ran = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, string | undefined>)
    : []
  return { code, said, ran }
}

const node = process.execPath
const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

describe("a value holding NUL, which no process environment can carry", () => {
  const LEFT_OUT =
    "coffer: BINARY is left out: its value holds a NUL character, which no process environment can carry (read it with coffer secrets get BINARY)\n"

  it("is left out and named, never quoted; the command runs with the rest", async () => {
    const url = await serving(() => ({ version: 1, values: { OK: "1", BINARY: "s3cr3t\0tail" } }))
    expect(await runRecording(url, [])).toEqual({ code: 0, said: LEFT_OUT, ran: [{ OK: "1" }] })
  })

  it("is left out of the command's environment even where the shell has a variable of that name", async () => {
    const url = await serving(() => ({ version: 1, values: { OK: "1", BINARY: "s3cr3t\0tail" } }))
    expect(await runRecording(url, [], false, { BINARY: "the shell's own" })).toEqual({
      code: 0,
      said: LEFT_OUT,
      ran: [{ OK: "1" }],
    })
  })

  it("fails the run with 1 when --only names it, before the command starts", async () => {
    const url = await serving(() => ({ version: 1, values: { OK: "1", BINARY: "s3cr3t\0tail" } }))
    expect(await runRecording(url, ["--only", "OK,BINARY"])).toEqual({
      code: 1,
      said: "coffer: BINARY: a value holding a NUL character cannot be put in a process environment (leave it out of --only; read it with coffer secrets get BINARY)\n",
      ran: [],
    })
    expect(await runRecording(url, ["--only", "OK"])).toEqual({ code: 0, said: "", ran: [{ OK: "1" }] })
  })

  it("--watch: each start leaves out the values it cannot carry then, and says which", async () => {
    // The first two answers (the list, then the export) are the start's; every later one is version 2's, where
    // ZERO holds nothing but a NUL too.
    const before: State = { version: 1, values: { OK: "1", BINARY: "s3cr3t\0tail" } }
    const after: State = { version: 2, values: { OK: "2", BINARY: "s3cr3t\0tail", ZERO: "\0" } }
    let served = 0
    const url = await serving(() => (served++ < 2 ? before : after))
    const outcome = await runRecording(url, ["--watch", "--watch-interval", "1"], true)
    expect(outcome).toEqual({
      code: 0,
      said:
        LEFT_OUT +
        `coffer: OK changed: ${node} was stopped and starts again\n` +
        "coffer: BINARY, ZERO are left out: their values hold a NUL character, which no process environment can carry (read one with coffer secrets get KEY)\n",
      ran: [{ OK: "1" }, { OK: "2" }],
    })
  }, 15_000)
})
