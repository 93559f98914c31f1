/**
 * `coffer secrets delete` end to end: it deletes only once told to, by `--yes` (`-y`) or a `y` typed on a
 * terminal. Without a terminal and without `--yes` (a script, CI) it refuses with exit 1 and changes nothing,
 * rather than wait for an answer or delete unasked.
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
})
