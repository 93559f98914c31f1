/**
 * When `secrets run --fallback` may use its snapshot: when the service answers 5xx or does not answer in time
 * (here local servers that answer what each test asks, or accept and never answer), and only a snapshot of the
 * same service, project and environment (also when something else answers in its place, whatever the status);
 * never after Coffer's own 401, 403 or 404, which delete the snapshot they are about,
 * nor after another answer (429) or a failure before any request, which keep it. The e2e suite covers an
 * unreachable service; this covers the statuses a real host cannot be made to give on demand.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it, vi } from "vitest"
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

/** A server that answers every request with `status` and no body: not the service, whatever its status says. */
const notCoffer = async (status: number) => {
  const server = createServer((_request, response) => {
    response.statusCode = status
    response.end()
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** A server that accepts connections and never answers. */
const silent = async () => {
  const sockets: Array<Socket> = []
  const server = createTcpServer((socket) => {
    sockets.push(socket)
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

interface Scenario {
  /** The snapshot's service URL, project and environment, when not those the run asks for. */
  readonly snapshot?: { readonly url?: string; readonly project?: string; readonly environment?: string }
  /** The environment the run names. */
  readonly environment?: string
  readonly env?: Record<string, string | undefined>
}

const scenario = async (serverUrl: number | Promise<string>, options: Scenario = {}) => {
  const url = typeof serverUrl === "number" ? await answering(serverUrl) : await serverUrl
  const directory = mkdtempSync(join(tmpdir(), "coffer-fallback-"))
  const snapshot = join(directory, "snap")
  const out = join(directory, "out")
  await Effect.runPromise(
    saveSnapshot(snapshot, KEY, {
      url: options.snapshot?.url ?? url,
      project: options.snapshot?.project ?? "app",
      environment: options.snapshot?.environment ?? "production",
      savedAt: "2026-11-22T00:00:00.000Z",
      values: { DB_URL: "from the snapshot" },
    }),
  )
  let said = ""
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
    said += String(text)
    const written = rest.find((item) => typeof item === "function")
    written?.()
    return true
  })
  const code = await runCli(
    [
      "secrets",
      "run",
      "-p",
      "app",
      "-e",
      options.environment ?? "production",
      "--fallback",
      snapshot,
      "--",
      process.execPath,
      "-e",
      "require('fs').writeFileSync(process.argv[1], process.env.DB_URL ?? '')",
      out,
    ],
    {
      env: { COFFER_URL: url, COFFER_TOKEN: KEY, PATH: process.env.PATH, ...options.env },
      cwd: directory,
      requestTimeoutMs: 300,
    },
  ).finally(() => stderr.mockRestore())
  return {
    code,
    snapshotKept: existsSync(snapshot),
    ran: existsSync(out) ? readFileSync(out, "utf8") : undefined,
    said,
  }
}

describe("secrets run --fallback", () => {
  it.each([500, 502, 503])("uses the snapshot when the service answers %i", async (status) => {
    expect(await scenario(status)).toMatchObject({ code: 0, snapshotKept: true, ran: "from the snapshot" })
  })

  it("uses the snapshot when the service accepts the connection and never answers", async () => {
    const outcome = await scenario(silent())
    expect(outcome).toMatchObject({ code: 0, snapshotKept: true, ran: "from the snapshot" })
    expect(outcome.said).toContain("no answer within 0.3 s; using the snapshot")
  })

  it.each([404, 401, 502])(
    "uses the snapshot when another server answers %i in the service's place, not as Coffer does",
    async (status) => {
      const outcome = await scenario(notCoffer(status))
      expect(outcome).toMatchObject({ code: 0, snapshotKept: true, ran: "from the snapshot" })
      expect(outcome.said).toContain(", not as Coffer's API does: ")
    },
  )

  it.each([
    [401, 2],
    [403, 4],
    [404, 3],
  ])("deletes the snapshot and runs nothing after %i (exit %i)", async (status, exitCode) => {
    expect(await scenario(status)).toMatchObject({ code: exitCode, snapshotKept: false, ran: undefined })
  })

  it("keeps the snapshot after another answer (429) and when no request was made (no API key)", async () => {
    expect(await scenario(429)).toMatchObject({ code: 4, snapshotKept: true, ran: undefined })
    expect(await scenario(401, { env: { COFFER_TOKEN: undefined } })).toMatchObject({
      code: 2,
      snapshotKept: true,
      ran: undefined,
    })
  })

  it("deletes only the snapshot of what was refused: not another environment's, nor another service's", async () => {
    expect(await scenario(404, { environment: "prodution" })).toMatchObject({ code: 3, snapshotKept: true })
    expect(await scenario(403, { snapshot: { project: "other" } })).toMatchObject({ code: 4, snapshotKept: true })
    expect(await scenario(401, { snapshot: { url: "http://127.0.0.1:9" } })).toMatchObject({
      code: 2,
      snapshotKept: true,
    })
  })

  it("refuses a snapshot taken from another service URL, failing as the service did (5), and saying both", async () => {
    const outcome = await scenario(503, { snapshot: { url: "http://127.0.0.1:9" } })
    expect(outcome).toMatchObject({ code: 5, snapshotKept: true, ran: undefined })
    expect(outcome.said).toContain(
      "; and the snapshot cannot stand in: the snapshot was taken from http://127.0.0.1:9, not",
    )
  })
})
