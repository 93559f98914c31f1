/**
 * `secrets delete KEY…` against a local service that holds A, B and C and fails a deletion as told: the keys are
 * checked against one list before any deletion, the deletions go one at a time in the order given, and one that
 * fails midway (an error answer, a key someone else deleted meanwhile, a connection cut with no answer) stops the
 * rest and is reported with exactly what was deleted and what was not.
 */
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { runCaught } from "../testing/caughtRun.js"

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

const WRITE_KEY = {
  user: { id: "u1", email: "ada@example.com" },
  apiKey: { id: "k1", scope: "write", expiresAt: null, project: { id: "p1", slug: "app", name: "App" } },
}

const SECRETS = "/api/projects/app/environments/dev/secrets"

/** `B@3` is B at version 3; a bare key is at version 1. */
const item = (held: string) => {
  const [key = "", version = "1"] = held.split("@")
  return { id: `id-${key}`, key, version: Number(version), createdAt: "2025-01-01", updatedAt: "2025-01-01" }
}

/** How the service answers one deletion: take it, refuse it with a status and message, or cut the connection. */
type Answer = "ok" | "cut" | readonly [number, string]

/** A service holding `held`; answers each `DELETE` with `answer(key)`. Returns its URL and every request it got. */
const service = async (
  held: ReadonlyArray<string>,
  answer: (key: string) => Answer = () => "ok",
  identity: unknown = WRITE_KEY,
) => {
  const requests: Array<string> = []
  const server = createServer((request, response) => {
    const url = request.url ?? ""
    requests.push(`${request.method} ${url}`)
    response.setHeader("content-type", "application/json")
    if (request.method === "GET" && url === "/api/auth/me") return response.end(JSON.stringify(identity))
    if (request.method === "GET" && url === SECRETS) return response.end(JSON.stringify({ secrets: held.map(item) }))
    if (request.method === "DELETE" && url.startsWith(`${SECRETS}/`)) {
      const outcome = answer(decodeURIComponent(url.slice(SECRETS.length + 1).split("?")[0] ?? ""))
      if (outcome === "ok") return response.end(JSON.stringify({ ok: true }))
      if (outcome === "cut") return request.socket.destroy()
      response.statusCode = outcome[0]
      return response.end(JSON.stringify({ error: outcome[1] }))
    }
    response.statusCode = 404
    response.end(JSON.stringify({ error: "Not found" }))
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  closers.push(() => server.close())
  const deleted = () => requests.filter((line) => line.startsWith("DELETE")).map((line) => line.split("/").at(-1) ?? "")
  /** The keys deleted, in order. */
  const deletions = () => deleted().map((last) => last.split("?")[0])
  /** The version each deletion expected, from its `?expectedVersion=`. */
  const expected = () => deleted().map((last) => new URLSearchParams(last.split("?")[1]).get("expectedVersion"))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, deletions, expected }
}

/** Runs `coffer secrets delete <args> -p app -e dev` with stdout and stderr caught (stdout taking `takes` writes). */
const remove = (url: string, args: ReadonlyArray<string>, takes?: number) =>
  runCaught(["secrets", "delete", ...args], url, mkdtempSync(join(tmpdir(), "coffer-delete-")), takes)

describe("secrets delete KEY…", () => {
  it("deletes each key once, in the order given, after one list", async () => {
    const { url, requests, deletions } = await service(["A", "B", "C"])
    const outcome = await remove(url, ["C", "A", "C", "--yes"])
    expect(outcome).toEqual({
      code: 0,
      out: "C: deleted, with its history\nA: deleted, with its history\n",
      err: "",
    })
    expect(requests.filter((line) => line === `GET ${SECRETS}`)).toHaveLength(1)
    expect(deletions()).toEqual(["C", "A"])
  })

  it("deletes nothing when a key is missing (exit 3) or a name breaks the rules (exit 1), naming them", async () => {
    const { url, deletions } = await service(["A", "B", "C"])
    expect(await remove(url, ["A", "NOPE", "B", "GONE", "--yes"])).toEqual({
      code: 3,
      out: "",
      err: "coffer: app/dev has no NOPE, GONE; nothing was deleted\n",
    })
    const bad = await remove(url, ["A", "B=2", "NOPE", "--yes"])
    expect([bad.code, bad.out]).toEqual([1, ""])
    expect(bad.err).toBe(
      'coffer: "B=2": Secret key may contain only letters A-Z and a-z, digits, "_", "-" and "."; found "="; ' +
        "nothing was deleted\n",
    )
    expect(deletions()).toEqual([])
  })

  it("refuses a key that can only read before asking or deleting: read scope, or a holder moved down to read", async () => {
    const readOnly =
      "coffer: this API key can only read: deleting secrets needs a write key (create one under API keys)\n"
    for (const apiKey of [
      { ...WRITE_KEY.apiKey, scope: "read" },
      { ...WRITE_KEY.apiKey, holderRole: "read" },
    ]) {
      const { url, deletions } = await service(["A", "B"], () => "ok", { ...WRITE_KEY, apiKey })
      expect(await remove(url, ["A", "B", "--yes"])).toEqual({ code: 4, out: "", err: readOnly })
      expect(deletions()).toEqual([])
    }
    // A write key whose holder may write, and a session (no key), delete.
    for (const identity of [
      { ...WRITE_KEY, apiKey: { ...WRITE_KEY.apiKey, holderRole: "write" } },
      { user: WRITE_KEY.user },
    ]) {
      const { url, deletions } = await service(["A"], () => "ok", identity)
      expect((await remove(url, ["A", "--yes"])).code).toBe(0)
      expect(deletions()).toEqual(["A"])
    }
  })

  it("deletes each key at the version listed, and stops at one saved since (409) with the rest not deleted", async () => {
    const { url, expected } = await service(["A@2", "B@7", "C"], (key) =>
      key === "B" ? [409, "B is at version 8, not 7: it changed since it was read"] : "ok",
    )
    expect(await remove(url, ["A", "B", "C", "--yes"])).toEqual({
      code: 4,
      out: "A: deleted, with its history\n",
      err: "coffer: B: B is at version 8, not 7: it changed since it was read; deleted: A; not deleted: B, C\n",
    })
    expect(expected()).toEqual(["2", "7"])
  })

  it("stops with 141 when stdout's reader goes away, and says on stderr what was deleted", async () => {
    const { url, deletions } = await service(["A", "B", "C"])
    expect(await remove(url, ["A", "B", "C", "--yes"], 1)).toEqual({
      code: 141,
      out: "A: deleted, with its history\n",
      err: "coffer: output closed; deleted: A, B; not deleted: C\n",
    })
    expect(deletions()).toEqual(["A", "B"])
  })

  it("deletes a stored key whose name the rules no longer allow (data from an earlier implementation)", async () => {
    const { url, deletions } = await service(["A", "old key"])
    expect((await remove(url, ["old key", "--yes"])).code).toBe(0)
    expect(deletions()).toEqual(["old%20key"])
  })

  it("stops at a refusal midway and says what was deleted and what was not", async () => {
    const { url, deletions } = await service(["A", "B", "C"], (key) => (key === "B" ? [500, "database down"] : "ok"))
    expect(await remove(url, ["A", "B", "C", "--yes"])).toEqual({
      code: 5,
      out: "A: deleted, with its history\n",
      err: "coffer: B: database down; deleted: A; not deleted: B, C\n",
    })
    expect(deletions()).toEqual(["A", "B"])
  })

  it("reports a key someone else deleted meanwhile as not deleted by this run (exit 3)", async () => {
    const { url } = await service(["A", "B", "C"], (key) => (key === "B" ? [404, "Secret not found"] : "ok"))
    expect(await remove(url, ["A", "B", "C", "--yes"])).toEqual({
      code: 3,
      out: "A: deleted, with its history\n",
      err: "coffer: B: Secret not found (B in app/dev); deleted: A; not deleted: B, C\n",
    })
  })

  it("does not call a key deleted or not deleted when its request got no answer", async () => {
    const { url, deletions } = await service(["A", "B", "C"], (key) => (key === "B" ? "cut" : "ok"))
    const outcome = await remove(url, ["A", "B", "C", "--yes"])
    expect([outcome.code, outcome.out]).toEqual([5, "A: deleted, with its history\n"])
    expect(outcome.err).toMatch(
      /^coffer: B: cannot reach http:\/\/127\.0\.0\.1:\d+: .+; deleted: A; B may or may not be deleted \(secrets list shows it\); not deleted: C\n$/,
    )
    expect(deletions()).toEqual(["A", "B"])
  })
})
