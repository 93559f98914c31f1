/**
 * When `secrets run --fallback` may use its snapshot: when the service answers 5xx (here a local server that
 * answers what each test asks), never after 401, 403 or 404, which delete it. The e2e suite covers an unreachable
 * service; this covers the statuses a real host cannot be made to give on demand.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { runCli } from "./main.js"
import { saveSnapshot } from "./snapshot.js"

const KEY = `cfk_${"s".repeat(43)}`
const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

/** A server that answers every request with `status` and an `{error}` body. */
const answering = async (status: number) => {
  const server = createServer((_request, response) => {
    response.statusCode = status
    response.setHeader("content-type", "application/json")
    response.end(JSON.stringify({ error: `answer ${status}` }))
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const scenario = async (status: number) => {
  const url = await answering(status)
  const directory = mkdtempSync(join(tmpdir(), "coffer-fallback-"))
  const snapshot = join(directory, "snap")
  const out = join(directory, "out")
  await Effect.runPromise(
    saveSnapshot(snapshot, KEY, {
      url,
      project: "app",
      environment: "production",
      savedAt: "2026-11-22T00:00:00.000Z",
      values: { DB_URL: "from the snapshot" },
    }),
  )
  const code = await runCli(
    [
      "secrets",
      "run",
      "-p",
      "app",
      "-e",
      "production",
      "--fallback",
      snapshot,
      "--",
      process.execPath,
      "-e",
      "require('fs').writeFileSync(process.argv[1], process.env.DB_URL ?? '')",
      out,
    ],
    { env: { COFFER_URL: url, COFFER_TOKEN: KEY, PATH: process.env.PATH }, cwd: directory },
  )
  return { code, snapshotKept: existsSync(snapshot), ran: existsSync(out) ? readFileSync(out, "utf8") : undefined }
}

describe("secrets run --fallback", () => {
  it.each([500, 502, 503])("uses the snapshot when the service answers %i", async (status) => {
    expect(await scenario(status)).toEqual({ code: 0, snapshotKept: true, ran: "from the snapshot" })
  })

  it.each([
    [401, 2],
    [403, 4],
    [404, 3],
  ])("deletes the snapshot and runs nothing after %i (exit %i)", async (status, exitCode) => {
    expect(await scenario(status)).toEqual({ code: exitCode, snapshotKept: false, ran: undefined })
  })
})
