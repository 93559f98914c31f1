/**
 * A short flag joined to its value (`-pshop`): the parser would read each letter as a flag, and the `h` in it
 * would print the help and exit 0 without running anything. It is refused with 1, saying how to write it. And
 * every argument a `--help` names is described there.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { runCli } from "./main.js"

/** The exit code, stdout and stderr of `argv`, with no service to reach. */
const outcome = async (argv: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  let stdout = ""
  let stderr = ""
  const capture =
    (into: (text: string) => void) =>
    (chunk: unknown, ...rest: Array<unknown>) => {
      into(String(chunk))
      ;(rest.find((item) => typeof item === "function") as (() => void) | undefined)?.()
      return true
    }
  const out = vi.spyOn(process.stdout, "write").mockImplementation(capture((text) => (stdout += text)))
  const err = vi.spyOn(process.stderr, "write").mockImplementation(capture((text) => (stderr += text)))
  const log = vi.spyOn(console, "log").mockImplementation((text) => (stdout += String(text)))
  const home = mkdtempSync(join(tmpdir(), "coffer-main-"))
  const code = await runCli(argv, {
    env: { COFFER_URL: "http://127.0.0.1:9", XDG_CONFIG_HOME: home, ...env },
    cwd: home,
  }).finally(() => {
    out.mockRestore()
    err.mockRestore()
    log.mockRestore()
  })
  return { code, stdout, stderr }
}

describe("a short flag joined to its value", () => {
  it("is refused with 1 instead of printing the help and exiting 0", async () => {
    const run = await outcome(["secrets", "run", "-pshop", "--", "sh", "-c", "exit 0"])
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      "",
      "coffer: -pshop: write a short flag apart from its value (`-p shop`); a key or value that starts with - goes after --\n",
    ])
    expect((await outcome(["secrets", "list", "-eproduction"])).code).toBe(1)
  })

  it("leaves alone -p=VALUE, single short flags, and anything after --", async () => {
    for (const argv of [
      ["secrets", "list", "-p=app", "-e", "dev"],
      ["secrets", "get", "-e", "dev", "--", "-KEY"],
    ]) {
      // No key is set, so each stops at authentication (2), after the parser took the flags.
      expect((await outcome(argv)).code, argv.join(" ")).toBe(2)
    }
    expect((await outcome(["secrets", "list", "-h"])).code).toBe(0)
  })
})

describe("--help", () => {
  const leaves = [
    ["completions"],
    ...["run", "push", "import", "set", "get", "delete", "history", "restore"].map((c) => ["secrets", c]),
    ...["get", "diff"].map((c) => ["schemas", c]),
  ]
  it.each(leaves.map((command) => [command.join(" "), command] as const))(
    "%s describes each of its arguments",
    async (_, command) => {
      const help = await outcome([...command, "--help"])
      const section = help.stdout.split("ARGUMENTS")[1]?.split(/\n\S/)[0] ?? ""
      expect(section, command.join(" ")).not.toBe("")
      // `  KEY string` and nothing after it: an argument the help names without saying what it is.
      expect(section, command.join(" ")).not.toMatch(/^ {2}\S+ (?:string|choice|integer)\s*$/m)
    },
  )
})

describe("an empty PLATFORM/VERSION", () => {
  it.each([[["schemas", "get", ""]], [["schemas", "get", " "]], [["schemas", "diff", "app/1.0.0", ""]]])(
    "%j is named as what is empty, with 1, before any request",
    async (argv) => {
      // Port 9 answers nothing: a request would fail with 5.
      const run = await outcome([...argv, "--schemas-url", "http://127.0.0.1:9"], { COFFER_SCHEMAS_TOKEN: "cfs_x" })
      expect([run.code, run.stdout, run.stderr]).toEqual([
        1,
        "",
        "coffer: a PLATFORM/VERSION given is empty: give one, as app/^2, app/latest, or app alone for its latest\n",
      ])
    },
  )
})

describe("a flag after run's command, without --", () => {
  it.each([
    [["run", "./deploy.sh", "-v"], "-v", "./deploy.sh"],
    [["run", "./deploy.sh", "--help"], "--help", "./deploy.sh"],
    [["secrets", "run", "--env", "dev", "grep", "-e", "x", "file"], "-e", "grep"],
    [["run", "-p", "app", "--watch", "env", "--env", "staging"], "--env", "env"],
  ])("%j is refused with 1, naming it, instead of being taken as coffer's own", async (argv, flag, command) => {
    const run = await outcome(argv)
    const path = argv[0] === "run" ? "run" : "secrets run"
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      "",
      `coffer: ${flag} comes after the command ${command}, and coffer would take it as its own flag. The command to run and its flags go after \`--\`: \`coffer ${path} [flags] -- <command> [args…]\`.\n`,
    ])
  })

  it("leaves alone a command without flags, flags before the command, and anything after --", async () => {
    for (const argv of [
      ["run", "--env", "dev", "npm", "start"],
      ["run", "-e", "dev", "--only", "A", "sh", "-"],
      ["secrets", "run", "-e", "dev", "--", "sh", "-c", "exit 0", "-v"],
    ]) {
      // No key is set, so each stops at authentication (2), after the parser took the flags.
      expect((await outcome(argv)).code, argv.join(" ")).toBe(2)
    }
  })
})
