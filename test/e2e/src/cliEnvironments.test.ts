/**
 * `coffer environments` end to end: the built command against a built host with a real SQLite file. An
 * environment per pull request is made as a copy of another (read as one export, nothing made when the source
 * cannot be read) and deleted once done, only when `--yes` or the name typed on a terminal says so.
 */
import { afterEach, describe, expect, it } from "vitest"
import { call, coffer, onTerminal, project, serve, setAll, stopHosts } from "./cliHarness.js"

afterEach(stopHosts)

describe("coffer environments", () => {
  it("lists, creates empty or as a copy, and deletes only when told to", async () => {
    const { secrets } = await serve()
    const { env, cookie, readKey } = await project(secrets)
    await setAll(env, { A: "1", MULTI: "line one\nit's $HOME", EMPTY: "" })
    const environments = (...args: ReadonlyArray<string>) => coffer(["environments", ...args], { env })
    const names = async () =>
      JSON.parse((await environments("list", "--json")).stdout).map((environment: { name: string }) => environment.name)
    const exports = async () =>
      (await call(secrets, "GET", "/api/projects/app/audit-log?action=secrets.exported", { cookie })).body.auditLog
        .length
    const values = async (environment: string) =>
      JSON.parse((await coffer(["secrets", "pull", "--env", environment, "--format", "json"], { env })).stdout)

    const listed = await environments("list")
    expect([listed.code, listed.stdout.split("\n")[0]]).toEqual([0, expect.stringMatching(/^NAME\s+CREATED$/)])
    expect(await names()).toEqual(["development", "staging", "production"])

    const empty = await environments("create", "qa")
    expect([empty.code, empty.stdout]).toEqual([0, "created app/qa\n"])
    const again = await environments("create", "qa")
    expect([again.code, again.stderr]).toEqual([4, expect.stringContaining("exists")])

    // A copy: the source read once, as one export; every value exactly.
    const before = await exports()
    const copied = await environments("create", "pr-1", "--copy-from", "development")
    expect([copied.code, copied.stdout]).toEqual([0, "created app/pr-1 with 3 keys from development\n"])
    expect(await exports()).toBe(before + 1)
    expect(await values("pr-1")).toEqual({ A: "1", MULTI: "line one\nit's $HOME", EMPTY: "" })
    const asJson = await environments("create", "pr-2", "--copy-from", "pr-1", "--json")
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      environment: { name: "pr-2" },
      copied: ["A", "EMPTY", "MULTI"],
      skipped: [],
    })

    // A source that cannot be read, or a key that may only read: nothing is made.
    const missing = await environments("create", "pr-3", "--copy-from", "nope")
    expect([missing.code, missing.stderr]).toEqual([3, expect.stringContaining("app/nope")])
    const itself = await environments("create", "pr-3", "--copy-from", "pr-3")
    expect([itself.code, itself.stderr]).toEqual([1, "coffer: --copy-from names pr-3, the environment to create\n"])
    // Refused before the source is read: nothing exported, nothing made.
    const reads = await exports()
    const reader = await coffer(["environments", "create", "pr-3", "--copy-from", "development"], {
      env: { ...env, COFFER_TOKEN: readKey },
    })
    expect([reader.code, reader.stderr]).toEqual([
      4,
      "coffer: this API key can only read: creating an environment needs a write key (create one under API keys)\n",
    ])
    const misnamed = await environments("create", "pr/3", "--copy-from", "development")
    expect([misnamed.code, misnamed.stderr]).toEqual([
      1,
      'coffer: "pr/3" is no environment name: letters, digits, _, - and . (at most 64)\n',
    ])
    expect(await exports()).toBe(reads)
    expect(await names()).not.toContain("pr-3")

    // Deleting takes its secrets and their history: not without --yes, or the name typed back on a terminal.
    const unasked = await environments("delete", "pr-1")
    expect([unasked.code, unasked.stderr]).toEqual([
      1,
      "coffer: deleting pr-1 deletes its secrets and their history: pass --yes to do it\n",
    ])
    const mistyped = await onTerminal(["environments", "delete", "pr-1"], {
      env,
      waitFor: "Type its name to go on: ",
      typed: "pr-2\r",
    })
    expect(mistyped.code, mistyped.stdout).toBe(1)
    expect(mistyped.stdout).toContain('"pr-2" is not pr-1: nothing was deleted')
    expect(await names()).toContain("pr-1")
    // Ctrl-C at the question ends `coffer` as SIGINT would a program: 130, and nothing deleted.
    const stopped = await onTerminal(["environments", "delete", "pr-1"], {
      env,
      waitFor: "Type its name to go on: ",
      typed: "pr-\u0003",
    })
    expect(stopped.code, stopped.stdout).toBe(130)
    expect(stopped.stdout).not.toContain("coffer:")
    expect(await names()).toContain("pr-1")
    const typed = await onTerminal(["environments", "delete", "pr-1"], {
      env,
      waitFor: "Type its name to go on: ",
      typed: "pr-1\r",
    })
    expect(typed.code, typed.stdout).toBe(0)
    const deleted = await environments("delete", "pr-2", "--yes")
    expect([deleted.code, deleted.stderr]).toEqual([0, "coffer: deleted app/pr-2, with its secrets\n"])
    expect(await names()).toEqual(["development", "staging", "production", "qa"])
    // `..` would be resolved away by the request's URL, and reach the project itself.
    const dots = await environments("delete", "..", "--yes")
    expect([dots.code, dots.stderr]).toEqual([1, "coffer: no project, environment or key is named . or ..\n"])
    const gone = await environments("delete", "pr-2", "--yes")
    expect([gone.code, gone.stderr]).toEqual([3, expect.stringContaining("app/pr-2")])
  })
})
