/**
 * `coffer secrets delete` end to end: it deletes only once told to, by `--yes` (`-y`) or a `y` typed on a
 * terminal. Without a terminal and without `--yes` (a script, CI) it refuses with exit 1 and changes nothing,
 * rather than wait for an answer or delete unasked. Given several keys, it deletes none unless every one is there,
 * asks once for all, and a refusal midway says what was deleted and what was not.
 */
import { afterEach, describe, expect, it } from "vitest"
import { call, coffer, onTerminal, project, serve, setAll, stopHosts } from "./cliHarness.js"

afterEach(stopHosts)

describe("coffer secrets delete", () => {
  it("asks on a terminal, refuses without one unless --yes, and deletes with --yes", async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    await setAll(env, { A: "1", B: "2", C: "3" })
    const keys = async () =>
      Object.keys(JSON.parse((await coffer(["secrets", "pull", "--format", "json"], { env })).stdout)).sort()
    const deletions = async () =>
      (await call(secrets, "GET", "/api/projects/app/audit-log?action=secret.deleted", { cookie })).body.auditLog.length

    // A pipe for stdin, no --yes: refused at once, exit 1 (usage), nothing deleted.
    const unasked = await coffer(["secrets", "delete", "A"], { env, stdin: "y\n" })
    expect([unasked.code, unasked.stdout, unasked.stderr]).toEqual([
      1,
      "",
      "coffer: deleting A from app/development deletes its history too: pass --yes to do it\n",
    ])
    expect(await keys()).toEqual(["A", "B", "C"])

    // On a terminal: the question names the key and where it lives; only y (or yes) goes on.
    const question = "Delete A from app/development? [y/N] "
    const declined = await onTerminal(["secrets", "delete", "A"], { env, waitFor: question, typed: "\r" })
    expect(declined.code, declined.stdout).toBe(1)
    expect(declined.stdout).toContain("not confirmed: nothing was deleted")
    const no = await onTerminal(["secrets", "delete", "A"], { env, waitFor: question, typed: "n\r" })
    expect(no.code, no.stdout).toBe(1)
    expect(await keys()).toEqual(["A", "B", "C"])
    expect(await deletions()).toBe(0)
    const yes = await onTerminal(["secrets", "delete", "A"], { env, waitFor: question, typed: "y\r" })
    expect(yes.code, yes.stdout).toBe(0)
    expect(yes.stdout).toContain("A: deleted, with its history")
    expect(await keys()).toEqual(["B", "C"])

    // --yes and -y: no question, even with nothing on stdin to answer it.
    const told = await coffer(["secrets", "delete", "B", "--yes"], { env })
    expect([told.code, told.stdout, told.stderr]).toEqual([0, "B: deleted, with its history\n", ""])
    const short = await coffer(["secrets", "delete", "-y", "C"], { env })
    expect([short.code, short.stdout]).toEqual([0, "C: deleted, with its history\n"])
    expect(await keys()).toEqual([])
    expect(await deletions()).toBe(3)
  })

  it("deletes several keys at once, and none when one is missing, refused, declined or not confirmed", async () => {
    const { secrets } = await serve()
    const { env, cookie, readKey } = await project(secrets)
    await setAll(env, { A: "1", B: "2", C: "3", D: "4", E: "5" })
    const keys = async () =>
      Object.keys(JSON.parse((await coffer(["secrets", "pull", "--format", "json"], { env })).stdout)).sort()
    const deletions = async () =>
      (await call(secrets, "GET", "/api/projects/app/audit-log?action=secret.deleted", { cookie })).body.auditLog.length
    const all = ["A", "B", "C", "D", "E"]

    // A key the environment lacks: named, exit 3 (not found), and the others are left too.
    const missing = await coffer(["secrets", "delete", "A", "NOPE", "B", "--yes"], { env })
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([
      3,
      "",
      "coffer: app/development has no NOPE; nothing was deleted\n",
    ])
    // A name the rules refuse: a usage error (exit 1), before anything is asked.
    const bad = await onTerminal(["secrets", "delete", "A", "B=2"], { env })
    expect(bad.code, bad.stdout).toBe(1)
    expect(bad.stdout).toContain('"B=2": Secret key may contain only')
    expect(bad.stdout).not.toContain("[y/N]")
    // Piped stdin, no --yes: refused at once, naming them all.
    const unasked = await coffer(["secrets", "delete", "A", "B"], { env, stdin: "y\n" })
    expect([unasked.code, unasked.stdout, unasked.stderr]).toEqual([
      1,
      "",
      "coffer: deleting 2 secrets (A, B) from app/development deletes their history too: pass --yes to do it\n",
    ])
    // On a terminal: one question for all of them; n deletes none.
    const question = "Delete 3 secrets (A, B, C) from app/development? [y/N] "
    const no = await onTerminal(["secrets", "delete", "A", "B", "C"], { env, waitFor: question, typed: "n\r" })
    expect(no.code, no.stdout).toBe(1)
    expect(no.stdout).toContain("not confirmed: nothing was deleted")
    // A key that may only read: refused before the question (exit 4), so nothing is asked or deleted.
    const readOnly = await onTerminal(["secrets", "delete", "A", "B"], { env: { ...env, COFFER_TOKEN: readKey } })
    expect(readOnly.code, readOnly.stdout).toBe(4)
    expect(readOnly.stdout).toContain("this API key can only read: deleting secrets needs a write key")
    expect(readOnly.stdout).not.toContain("[y/N]")
    expect(await keys()).toEqual(all)
    expect(await deletions()).toBe(0)

    // Several with --yes, a repeated one counted once: one line each, in the order given.
    const told = await coffer(["secrets", "delete", "D", "A", "D", "--yes"], { env })
    expect([told.code, told.stdout, told.stderr]).toEqual([
      0,
      "D: deleted, with its history\nA: deleted, with its history\n",
      "",
    ])
    expect(await keys()).toEqual(["B", "C", "E"])

    // Someone else deletes C while the question waits: B goes, C is reported, E is left as it was.
    const raced = await onTerminal(["secrets", "delete", "B", "C", "E"], {
      env,
      waitFor: "Delete 3 secrets (B, C, E) from app/development? [y/N] ",
      typed: "y\r",
      meanwhile: async () => {
        const gone = await call(secrets, "DELETE", "/api/projects/app/environments/development/secrets/C", { cookie })
        expect(gone.status).toBe(200)
      },
    })
    expect(raced.code, raced.stdout).toBe(3)
    expect(raced.stdout).toContain("B: deleted, with its history")
    expect(raced.stdout).toContain("C: Secret not found (C in app/development); deleted: B; not deleted: C, E")
    expect(await keys()).toEqual(["E"])
    expect(await deletions()).toBe(4)

    // Someone else saves F while the question waits: the deletion named the version listed, so F is kept with the
    // new value (409, exit 4) and G, after it, is not tried.
    await setAll(env, { F: "6", G: "7" })
    const saved = await onTerminal(["secrets", "delete", "F", "G"], {
      env,
      waitFor: "Delete 2 secrets (F, G) from app/development? [y/N] ",
      typed: "y\r",
      meanwhile: async () => {
        const body = { key: "F", value: "changed" }
        const change = await call(secrets, "POST", "/api/projects/app/environments/development/secrets", {
          cookie,
          body,
        })
        expect(change.status).toBe(200)
      },
    })
    expect(saved.code, saved.stdout).toBe(4)
    expect(saved.stdout).toContain("F: F is at version 2, not 1: it changed since it was read; nothing was deleted")
    expect(await keys()).toEqual(["E", "F", "G"])
    expect(await deletions()).toBe(4)
  })
})
