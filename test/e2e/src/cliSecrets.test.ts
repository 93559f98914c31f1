/**
 * `coffer secrets` end to end: the built command against a built host on free ports with a real SQLite file.
 * `run` injects values exactly and passes on signals and exit codes; `pull` gives files that bash and the `dotenv`
 * parser read back exactly; `push` shows and applies changes (1,000 keys round-trip); `import` decides conflicts;
 * the fallback snapshot is used while the service is down and deleted once the key is refused.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse as parseDotenv } from "dotenv"
import { afterEach, describe, expect, it, onTestFinished } from "vitest"
import { call, cliBin, coffer, corpus, devLogin, printEnv, project, serve, setAll, stopHosts } from "./cliHarness.js"
import { freshDirectory } from "./host.js"

afterEach(stopHosts)

describe("coffer secrets run", () => {
  it("injects every value exactly (multi-line, quotes, $, empty) and exits with the child's code", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    await setAll(env, corpus)
    const ran = await coffer(["secrets", "run", "--", ...printEnv(Object.keys(corpus))], { env })
    expect(ran.code, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout)).toEqual(corpus)
    const only = await coffer(["secrets", "run", "--only", "EMPTY,PLAIN", "--", ...printEnv(["PLAIN", "DOUBLE"])], {
      env,
    })
    expect(JSON.parse(only.stdout)).toEqual({ PLAIN: corpus.PLAIN })
    expect((await coffer(["secrets", "run", "--", "sh", "-c", "exit 7"], { env })).code).toBe(7)
    expect((await coffer(["secrets", "run", "--", "sh", "-c", "kill -KILL $$"], { env })).code).toBe(128 + 9)
    // A command that cannot start is said as a shell would say it, with the code a shell would give.
    const missing = await coffer(["secrets", "run", "--", "no-such-command-here"], { env })
    expect([missing.code, missing.stderr]).toEqual([
      127,
      "coffer: cannot run no-such-command-here: command not found (ENOENT: is it on PATH?)\n",
    ])
    // The child's own flags before `--` are refused (exit 1), with where they belong.
    const noDashes = await coffer(["secrets", "run", "sh", "-c", "exit 0"], { env })
    expect(noDashes.code).toBe(1)
    expect(noDashes.stderr).toContain(
      "The command to run and its flags go after `--`: `coffer secrets run [flags] -- <command> [args…]`.",
    )
    // Through the server's own `coffer`, as `pnpm coffer secrets run -- …` runs it.
    const viaServer = await coffer(["secrets", "run", "--", ...printEnv(["MULTILINE"])], { env, server: true })
    expect(viaServer.code, viaServer.stderr).toBe(0)
    expect(JSON.parse(viaServer.stdout)).toEqual({ MULTILINE: corpus.MULTILINE })
    expect(ran.stderr + only.stderr).not.toContain(env.COFFER_TOKEN)
    // `coffer run` is the same command, as `doppler run` is, on both commands.
    for (const server of [false, true]) {
      const short = await coffer(["run", "--only", "PLAIN", "--", ...printEnv(["PLAIN", "DOUBLE"])], { env, server })
      expect([short.code, JSON.parse(short.stdout)]).toEqual([0, { PLAIN: corpus.PLAIN }])
    }
    const shortNoDashes = await coffer(["run", "sh", "-c", "exit 0"], { env })
    expect(shortNoDashes.stderr).toContain("`coffer run [flags] -- <command> [args…]`")
  })

  // SIGUSR1 would otherwise open Node's debugger in `coffer`, and SIGUSR2 end it, leaving the child behind.
  it.each(["SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2"] as const)(
    "forwards %s to the child and exits with its code",
    async (signal) => {
      const { secrets } = await serve()
      const { env } = await project(secrets)
      await setAll(env, { READY: "yes" })
      const script = `process.on(${JSON.stringify(signal)}, () => { process.stdout.write("got " + ${JSON.stringify(signal)}); process.exit(42) }); process.stdout.write("ready " + process.env.READY + "\\n"); setInterval(() => {}, 1000)`
      const child = spawn(process.execPath, [cliBin, "secrets", "run", "--", process.execPath, "-e", script], {
        cwd: freshDirectory(),
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      })
      let stdout = ""
      const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
      await new Promise<void>((ready) =>
        child.stdout.on("data", (chunk) => {
          stdout += chunk
          if (stdout.includes("ready yes")) ready()
        }),
      )
      child.kill(signal)
      expect(await exited).toBe(42)
      expect(stdout).toContain(`got ${signal}`)
    },
  )
})

describe("coffer secrets pull and push", () => {
  it("pull: the service's .env byte for byte, read back exactly by bash and dotenv; files are 0600", async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    await setAll(env, corpus)
    const cwd = freshDirectory()
    const file = join(cwd, "dev.env")
    // A file already there is replaced, as `doppler secrets download` does: pulling again is how one is refreshed.
    writeFileSync(file, "HAND=edited\n", { mode: 0o644 })
    const pulled = await coffer(["secrets", "pull", "--output", "dev.env"], { env, cwd })
    expect(pulled.code, pulled.stderr).toBe(0)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const served = await fetch(`${secrets}/api/projects/app/environments/development/secrets/.env`, {
      headers: { cookie },
    })
    expect(readFileSync(file, "utf8")).toBe(await served.text())
    expect((await coffer(["secrets", "pull"], { env })).stdout).toBe(readFileSync(file, "utf8"))
    const keys = Object.keys(corpus)
    const fromBash = (script: string) =>
      JSON.parse(
        execFileSync(
          "bash",
          [
            "--norc",
            "--noprofile",
            "-c",
            `${script}; ${printEnv(keys)
              .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
              .join(" ")}`,
          ],
          {
            env: { PATH: process.env.PATH ?? "" },
          },
        ).toString(),
      )
    expect(fromBash(`set -a; . ${JSON.stringify(file)}; set +a`)).toEqual(corpus)
    // Seed 001 §4 rule 3: dotenv keeps the backslashes of a value that has a single quote and an escaped character.
    const { HARD: _hard, ...exact } = corpus
    expect(parseDotenv(readFileSync(file))).toMatchObject(exact)
    const shell = await coffer(["secrets", "pull", "--format", "shell"], { env })
    writeFileSync(join(cwd, "dev.sh"), shell.stdout)
    expect(fromBash(`. ${JSON.stringify(join(cwd, "dev.sh"))}`)).toEqual(corpus)
    const json = await coffer(["secrets", "pull", "--format", "json", "-o", "dev.json"], { env, cwd })
    expect(json.code).toBe(0)
    expect(JSON.parse(readFileSync(join(cwd, "dev.json"), "utf8"))).toEqual(corpus)
    expect(statSync(join(cwd, "dev.json")).mode & 0o777).toBe(0o600)
  })

  it("push --dry-run shows keys (never values) and changes nothing; push applies, --prune deletes", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    await setAll(env, { KEEP: "same", CHANGE: "old", GONE: "bye" })
    const cwd = freshDirectory()
    writeFileSync(join(cwd, "next.env"), "KEEP=same\nCHANGE='secret-new-value'\nADDED=\"fresh $ value\"\n")
    const before = (await coffer(["secrets", "list", "--json"], { env })).stdout
    const dry = await coffer(["secrets", "push", "next.env", "--dry-run", "--prune"], { env, cwd })
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain("+ ADDED")
    expect(dry.stdout).toContain("~ CHANGE")
    expect(dry.stdout).toContain("- GONE")
    expect(dry.stdout).not.toContain("KEEP")
    expect(dry.stdout).not.toContain("secret-new-value")
    expect((await coffer(["secrets", "list", "--json"], { env })).stdout).toBe(before)
    const pushed = await coffer(["secrets", "push", "next.env"], { env, cwd })
    expect(pushed.code, pushed.stderr).toBe(0)
    // The plan first, then that it was carried out.
    expect(pushed.stdout).toMatch(/: 1 to add, 1 to change, 0 to delete\n.*: pushed\n$/)
    const values = async () => JSON.parse((await coffer(["secrets", "pull", "--format", "json"], { env })).stdout)
    expect(await values()).toEqual({ KEEP: "same", CHANGE: "secret-new-value", ADDED: "fresh $ value", GONE: "bye" })
    // Deleting takes history with it: with nobody to ask (no terminal), --prune deletes only with --yes.
    const unasked = await coffer(["secrets", "push", "next.env", "--prune"], { env, cwd })
    expect(unasked.code).toBe(1)
    expect(unasked.stderr).toContain("--prune would delete GONE from")
    expect(unasked.stderr).toContain("pass --yes to do it; nothing was changed")
    expect(unasked.stdout).toContain("- GONE")
    expect(await values()).toEqual({ KEEP: "same", CHANGE: "secret-new-value", ADDED: "fresh $ value", GONE: "bye" })
    // An emptied file would delete everything: the same question, nothing deleted unasked.
    writeFileSync(join(cwd, "empty.env"), "# nothing here\n")
    expect((await coffer(["secrets", "push", "empty.env", "--prune"], { env, cwd })).code).toBe(1)
    expect(Object.keys(await values())).toHaveLength(4)
    expect((await coffer(["secrets", "push", "next.env", "--prune", "--yes"], { env, cwd })).code).toBe(0)
    expect(await values()).toEqual({ KEEP: "same", CHANGE: "secret-new-value", ADDED: "fresh $ value" })
  })

  it("push and import read - from stdin, and name a key the file gives twice (the last value is used)", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    const values = async () => JSON.parse((await coffer(["secrets", "pull", "--format", "json"], { env })).stdout)
    const pushed = await coffer(["secrets", "push", "-"], { env, stdin: "A=first\nB=kept\nA=second\n" })
    expect(pushed.code, pushed.stderr).toBe(0)
    expect(pushed.stderr).toBe("coffer: stdin: given more than once (the last value is used): A\n")
    expect(await values()).toEqual({ A: "second", B: "kept" })
    const imported = await coffer(["secrets", "import", "-"], { env, stdin: '{"C": "json", "C": "again"}' })
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stderr).toContain("stdin: given more than once (the last value is used): C")
    expect(await values()).toEqual({ A: "second", B: "kept", C: "again" })
    // A file given once says nothing more than it did.
    const cwd = freshDirectory()
    writeFileSync(join(cwd, "once.env"), "D=once\n")
    const once = await coffer(["secrets", "push", "once.env"], { env, cwd })
    expect(once.code, once.stderr).toBe(0)
    expect(once.stderr).toBe("")
    // Refused input from stdin is named as stdin, and nothing is written.
    const broken = await coffer(["secrets", "push", "-"], { env, stdin: "E=ok\nnot a line\n" })
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain("stdin: line 2: not a KEY=value line")
    expect(Object.keys(await values())).toEqual(["A", "B", "C", "D"])
  })

  it("push then pull round-trips 1,000 keys, and pushing the pulled file again changes nothing", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    const wanted: Record<string, string> = {}
    for (let index = 0; index < 1000; index++) wanted[`KEY_${index}`] = Object.values(corpus)[index % 11]! + index
    const cwd = freshDirectory()
    writeFileSync(join(cwd, "big.json"), JSON.stringify(wanted))
    const pushed = await coffer(["secrets", "push", "big.json"], { env, cwd })
    expect(pushed.code, pushed.stderr).toBe(0)
    expect(pushed.stdout).toContain("1000 to add")
    const pulled = await coffer(["secrets", "pull", "--format", "json"], { env })
    expect(JSON.parse(pulled.stdout)).toEqual(wanted)
    expect((await coffer(["secrets", "pull", "-o", "big.env"], { env, cwd })).code).toBe(0)
    const again = await coffer(["secrets", "push", "big.env", "--dry-run", "--prune"], { env, cwd })
    expect(again.stdout).toContain("0 to add, 0 to change, 0 to delete")
  })

  it("pull gives keys with - and . or a leading digit in .env too, so pushing it back with --prune deletes nothing", async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    const wanted = { "my-key": "dash", "a.b": "dot's", "1X": "digit", PLAIN: "plain value" }
    await setAll(env, wanted)
    const cwd = freshDirectory()
    expect((await coffer(["secrets", "pull", "-o", "all.env"], { env, cwd })).code).toBe(0)
    expect(parseDotenv(readFileSync(join(cwd, "all.env")))).toEqual(wanted)
    const again = await coffer(["secrets", "push", "all.env", "--dry-run", "--prune"], { env, cwd })
    expect(again.stdout).toContain("0 to add, 0 to change, 0 to delete")
    const shell = await coffer(["secrets", "pull", "--format", "shell"], { env })
    expect(shell.stdout).toBe("export PLAIN='plain value'\n")
    expect(shell.stderr).toContain("left out 3 key(s) that are not shell names")
    // A .env.example: the same keys in the same order, no value, and no value read (nothing audited as an export).
    const exports = async () =>
      (await call(secrets, "GET", "/api/projects/app/audit-log?action=secrets.exported", { cookie })).body.auditLog
        .length
    const exported = await exports()
    const example = await coffer(["secrets", "pull", "--format", "example", "-o", ".env.example"], { env, cwd })
    expect(example.code, example.stderr).toBe(0)
    const lines = readFileSync(join(cwd, "all.env"), "utf8").trim().split("\n")
    expect(readFileSync(join(cwd, ".env.example"), "utf8")).toBe(
      lines.map((line) => `${line.slice(0, line.indexOf("="))}=\n`).join(""),
    )
    expect(await exports()).toBe(exported)
  })

  it("import: --on-conflict fail writes nothing (exit 4), skip keeps, overwrite replaces; a read key is refused first", async () => {
    const { secrets } = await serve()
    const { env, readKey } = await project(secrets)
    await setAll(env, { A: "1", B: "2" })
    const cwd = freshDirectory()
    writeFileSync(join(cwd, "in.env"), "A=1\nB=changed\nC=3\n")
    // A key that can only read is refused before any plan is said, by import and by push alike (dry runs read).
    const reader = { ...env, COFFER_TOKEN: readKey }
    for (const args of [
      ["import", "in.env", "--on-conflict", "overwrite"],
      ["push", "in.env"],
    ]) {
      const refusedRun = await coffer(["secrets", ...args], { env: reader, cwd })
      expect([refusedRun.code, refusedRun.stdout, refusedRun.stderr]).toEqual([
        4,
        "",
        "coffer: this API key can only read: writing needs a write key (create one under API keys)\n",
      ])
    }
    expect((await coffer(["secrets", "push", "in.env", "--dry-run"], { env: reader, cwd })).code).toBe(0)
    const failed = await coffer(["secrets", "import", "in.env"], { env, cwd })
    expect(failed.code).toBe(4)
    expect(failed.stderr).toContain("B")
    const values = async () => JSON.parse((await coffer(["secrets", "pull", "--format", "json"], { env })).stdout)
    expect(await values()).toEqual({ A: "1", B: "2" })
    const skipped = await coffer(["secrets", "import", "in.env", "--on-conflict", "skip"], { env, cwd })
    expect([skipped.code, skipped.stdout.split("\n").at(-2)]).toEqual([
      0,
      expect.stringMatching(/: 1 added, 0 overwritten, 1 skipped$/),
    ])
    expect(await values()).toEqual({ A: "1", B: "2", C: "3" })
    expect((await coffer(["secrets", "import", "in.env", "--on-conflict", "overwrite"], { env, cwd })).code).toBe(0)
    expect(await values()).toEqual({ A: "1", B: "changed", C: "3" })
  })
})

describe("coffer secrets copy", () => {
  it("copies every key, or the keys named, into another environment by import's conflict rules", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    await setAll(env, { A: "1", B: "2", MULTI: "line one\nit's $HOME" })
    await setAll(env, { B: "other" }, "staging")
    const values = async (environment: string) =>
      JSON.parse((await coffer(["secrets", "pull", "--env", environment, "--format", "json"], { env })).stdout)
    const copy = (...args: ReadonlyArray<string>) => coffer(["secrets", "copy", ...args], { env })

    const failed = await copy("--to", "staging")
    expect([failed.code, failed.stderr]).toEqual([4, expect.stringContaining("already hold other values: B")])
    expect(await values("staging")).toEqual({ B: "other" })

    const skipped = await copy("--to", "staging", "--on-conflict", "skip")
    expect([skipped.code, skipped.stdout]).toEqual([
      0,
      "+ A\n+ MULTI\napp/staging: 2 added, 0 overwritten, 1 skipped\n",
    ])
    expect(await values("staging")).toEqual({ A: "1", B: "other", MULTI: "line one\nit's $HOME" })

    const one = await copy("--to", "staging", "B", "--on-conflict", "overwrite", "--json")
    expect([one.code, JSON.parse(one.stdout)]).toEqual([0, { add: [], change: ["B"], remove: [], skipped: [] }])
    expect((await values("staging")).B).toBe("2")
    // What was replaced stays in the key's history.
    const history = await coffer(["secrets", "history", "--env", "staging", "B", "--json"], { env })
    expect(JSON.parse(history.stdout).map((version: { version: number }) => version.version)).toEqual([2, 1])

    const unknown = await copy("--to", "production", "A", "NOPE")
    expect([unknown.code, unknown.stderr]).toEqual([1, "coffer: development has no NOPE; nothing was written\n"])
    const itself = await copy("--to", "development")
    expect([itself.code, itself.stderr]).toEqual([1, "coffer: --to names development, the environment copied from\n"])
    expect(await values("production")).toEqual({})
  })
})

describe("coffer secrets substitute", () => {
  it("fills a template's {{ coffer:KEY }} references from one export, or writes nothing and says why", async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    const pem = '-----BEGIN KEY-----\nab"c $HOME\n-----END KEY-----'
    await setAll(env, { DB_URL: "postgres://db.internal/app?sslmode=require", PEM: pem, EMPTY: "" })
    const exports = async () =>
      (await call(secrets, "GET", "/api/projects/app/audit-log?action=secrets.exported", { cookie })).body.auditLog
        .length
    const cwd = freshDirectory()
    const template = join(cwd, "config.yaml.tpl")
    // Another template language's braces stay as they are; a value goes in as it is, or as a JSON string.
    writeFileSync(
      template,
      "db: {{ coffer:DB_URL }}\nkey: {{ coffer:PEM | json }}\nempty: '{{coffer:EMPTY}}'\nport: {{ .Values.port }}\n",
    )
    const filled =
      `db: postgres://db.internal/app?sslmode=require\nkey: ${JSON.stringify(pem)}\nempty: ''\n` +
      "port: {{ .Values.port }}\n"
    const substitute = (args: ReadonlyArray<string>, stdin?: string) =>
      coffer(["secrets", "substitute", ...args], { env, cwd, ...(stdin === undefined ? {} : { stdin }) })

    const before = await exports()
    const printed = await substitute(["config.yaml.tpl"])
    expect([printed.code, printed.stdout, printed.stderr]).toEqual([0, filled, ""])
    expect(await exports()).toBe(before + 1)

    const output = join(cwd, "config.yaml")
    const written = await substitute(["config.yaml.tpl", "--output", "config.yaml"])
    expect([written.code, written.stdout, written.stderr]).toEqual([
      0,
      "",
      "coffer: wrote config.yaml (mode 0600) with 3 keys\n",
    ])
    expect(readFileSync(output, "utf8")).toBe(filled)
    expect(statSync(output).mode & 0o777).toBe(0o600)
    const piped = await substitute(["-"], "url={{ coffer:DB_URL }}")
    expect([piped.code, piped.stdout]).toEqual([0, "url=postgres://db.internal/app?sslmode=require"])
    // The template as its own output (by another path too) would be replaced by its secrets: refused, kept.
    const templateText = readFileSync(template, "utf8")
    for (const output of ["config.yaml.tpl", "./config.yaml.tpl"]) {
      const over = await substitute(["config.yaml.tpl", "-o", output])
      expect(over.code).toBe(1)
      expect(over.stderr).toContain("is the template itself")
      expect(readFileSync(template, "utf8")).toBe(templateText)
    }

    // A key the environment lacks: nothing written, the file there left as it was.
    writeFileSync(template, "{{ coffer:DB_URL }} {{ coffer:NOPE }} {{ coffer:GONE }}\n")
    const missing = await substitute(["config.yaml.tpl", "--output", "config.yaml"])
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([
      3,
      "",
      "coffer: development has no NOPE, GONE; nothing was written\n",
    ])
    expect(readFileSync(output, "utf8")).toBe(filled)

    // A reference that cannot be filled is named by its line, before anything is read.
    const reads = await exports()
    writeFileSync(template, "a: {{ coffer:DB_URL }}\nb: {{ coffer: }}\nc: {{ coffer:DB_URL | yaml }}\n")
    const bad = await substitute(["config.yaml.tpl"])
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([
      1,
      "",
      "coffer: config.yaml.tpl:2: {{ coffer: }} names no key; config.yaml.tpl:3: {{ coffer:DB_URL | yaml }}: no " +
        'filter "yaml" (there is | json); nothing was written\n',
    ])
    // No reference at all: the file as it is, and no value read.
    const none = await substitute(["-"], "listen 80;\n")
    expect([none.code, none.stdout, none.stderr]).toEqual([
      0,
      "listen 80;\n",
      "coffer: stdin has no {{ coffer:KEY }} reference: it is written as it is\n",
    ])
    // An empty stdin (a container started without -i) does not replace a file with nothing.
    const emptied = await substitute(["-", "--output", "config.yaml"], "")
    expect([emptied.code, emptied.stderr]).toEqual([1, "coffer: stdin is empty; nothing was written\n"])
    expect(readFileSync(output, "utf8")).toBe(filled)
    expect(await exports()).toBe(reads)
    const absent = await substitute(["nowhere.tpl"])
    expect([absent.code, absent.stderr]).toEqual([
      1,
      expect.stringMatching(/^coffer: cannot read nowhere\.tpl: ENOENT/),
    ])
  })
})

describe("coffer secrets: one secret at a time", () => {
  it("set pairs, get (--plain, --json), history, restore --version, diff (keys unless --show-values), delete", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    const set = await coffer(["secrets", "set", "A=first", "B=x=y"], { env })
    expect(set.stdout).toBe("A: created, version 1\nB: created, version 1\n")
    expect((await coffer(["secrets", "set", "A=second"], { env })).stdout).toBe("A: updated, version 2\n")
    expect((await coffer(["secrets", "get", "B"], { env })).stdout).toBe("x=y\n")
    expect((await coffer(["secrets", "get", "B", "--plain"], { env })).stdout).toBe("x=y")
    // Nothing at all on stdin is refused; `echo ""` (a line break) and `KEY=` set an empty value on purpose.
    const nothing = await coffer(["secrets", "set", "B"], { env, stdin: "" })
    expect([nothing.code, nothing.stderr]).toEqual([
      1,
      "coffer: nothing on stdin for B: pipe a value in, or write B= for an empty one\n",
    ])
    expect((await coffer(["secrets", "get", "B", "--plain"], { env })).stdout).toBe("x=y")
    expect((await coffer(["secrets", "set", "E1"], { env, stdin: "\n" })).code).toBe(0)
    expect((await coffer(["secrets", "set", "E2="], { env })).code).toBe(0)
    expect(JSON.parse((await coffer(["secrets", "pull", "--format", "json"], { env })).stdout)).toMatchObject({
      E1: "",
      E2: "",
    })
    for (const key of ["E1", "E2"]) expect((await coffer(["secrets", "delete", key, "--yes"], { env })).code).toBe(0)
    expect(JSON.parse((await coffer(["secrets", "get", "A", "--json"], { env })).stdout)).toMatchObject({
      key: "A",
      value: "second",
    })
    const history = JSON.parse((await coffer(["secrets", "history", "A", "--json"], { env })).stdout)
    expect(history.map((entry: { version: number }) => entry.version)).toEqual([2, 1])
    expect(history[0]).toEqual({
      version: 2,
      createdAt: expect.any(String),
      userId: expect.any(String),
      userEmail: expect.any(String),
      restoredFrom: null,
    })
    const listedKeys = JSON.parse((await coffer(["secrets", "list", "--json"], { env })).stdout)
    expect(Object.keys(listedKeys[0]).sort()).toEqual(["createdAt", "empty", "id", "key", "updatedAt", "version"])
    expect((await coffer(["secrets", "history", "A"], { env })).stdout).not.toContain("first")
    const restored = await coffer(["secrets", "restore", "A", "--version", "1"], { env })
    expect(restored.stdout).toBe("A: version 1 restored as version 3\n")
    // The history says which version was a restore, and of which version: as a note, and in --json.
    const afterRestore = JSON.parse((await coffer(["secrets", "history", "A", "--json"], { env })).stdout)
    expect(
      afterRestore.map((entry: { version: number; restoredFrom: number | null }) => [
        entry.version,
        entry.restoredFrom,
      ]),
    ).toEqual([
      [3, 1],
      [2, null],
      [1, null],
    ])
    const lines = (await coffer(["secrets", "history", "A"], { env })).stdout.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^VERSION +CREATED +BY +NOTE$/)
    expect(lines[1]).toMatch(/^3 .* restored from v1$/)
    expect(lines.slice(2).join("\n")).not.toContain("restored from")
    expect((await coffer(["secrets", "get", "A", "--plain"], { env })).stdout).toBe("first")
    // -v is restore's own short flag here, not the global version's: it restores (version 3 holds "first" too).
    const short = await coffer(["secrets", "restore", "A", "-v", "3"], { env })
    expect(short.stdout).toBe("A: version 3 restored as version 4\n")
    expect((await coffer(["secrets", "get", "A", "--plain"], { env })).stdout).toBe("first")
    expect((await coffer(["secrets", "set", "--env", "staging", "A=other", "C=3"], { env })).code).toBe(0)
    const diff = await coffer(["secrets", "diff", "--env", "development", "--env2", "staging"], { env })
    expect(diff.stdout).toBe("- B  only in development\n+ C  only in staging\n~ A  differs\n")
    const shown = await coffer(["secrets", "diff", "--env2", "staging", "--show-values"], { env })
    expect(shown.stdout).toContain('~ A  differs: "first" → "other"')
    // Keys of different lengths: what is said about them still starts in one column.
    expect((await coffer(["secrets", "set", "--env", "staging", "LONGER_KEY=1"], { env })).code).toBe(0)
    const aligned = await coffer(["secrets", "diff", "--env2", "staging"], { env })
    expect(aligned.stdout).toBe(
      "- B           only in development\n+ C           only in staging\n+ LONGER_KEY  only in staging\n" +
        "~ A           differs\n",
    )
    // The JSON answer names its lists as the flags do, whatever the environments are called.
    const listed = await coffer(["secrets", "diff", "--env2", "staging", "--json", "--show-values"], { env })
    expect(JSON.parse(listed.stdout)).toEqual({
      env: "development",
      env2: "staging",
      onlyInEnv: [{ key: "B", value: "x=y" }],
      onlyInEnv2: [
        { key: "C", value: "3" },
        { key: "LONGER_KEY", value: "1" },
      ],
      changed: [{ key: "A", env: "first", env2: "other" }],
    })
    const itself = await coffer(["secrets", "diff", "--env2", "development", "--json"], { env })
    expect(JSON.parse(itself.stdout)).toEqual({
      env: "development",
      env2: "development",
      onlyInEnv: [],
      onlyInEnv2: [],
      changed: [],
    })
    expect((await coffer(["secrets", "set", "BLANK="], { env })).code).toBe(0)
    const list = await coffer(["secrets", "list"], { env })
    // Version 4: the -v restore above. An empty value is marked so, without being read.
    expect(list.stdout).toMatch(/^KEY\s+VERSION\s+UPDATED\nA\s+4\s+\S+\nB\s+1\s+\S+\nBLANK\s+1\s+\S+\s+empty\n$/)
    expect(list.stdout).not.toContain("first")
    expect((await coffer(["secrets", "delete", "A", "--yes"], { env })).code).toBe(0)
    expect((await coffer(["secrets", "get", "A"], { env })).code).toBe(3)
    expect((await coffer(["secrets", "history", "A"], { env })).code).toBe(3)
  })
})

describe("coffer secrets set --expected-version", () => {
  it("writes only over that version (0: a new key); another answers exit 4 naming the version now", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    const set = (args: ReadonlyArray<string>, stdin?: string) =>
      coffer(["secrets", "set", ...args], { env, ...(stdin === undefined ? {} : { stdin }) })
    expect((await set(["--expected-version", "0", "DB_URL=one"])).stdout).toBe("DB_URL: created, version 1\n")
    const taken = await set(["--expected-version", "0", "DB_URL=mine"])
    expect([taken.code, taken.stderr]).toEqual([
      4,
      "coffer: DB_URL exists already (version 1): it was expected not to exist\n",
    ])
    // A value from stdin, as for any single key.
    expect((await set(["--expected-version", "1", "DB_URL"], "two\n")).stdout).toBe("DB_URL: updated, version 2\n")
    const stale = await set(["--expected-version", "1", "DB_URL=mine"])
    expect([stale.code, stale.stderr]).toEqual([
      4,
      "coffer: DB_URL is at version 2, not 1: it changed since it was read\n",
    ])
    expect((await coffer(["secrets", "get", "DB_URL", "--plain"], { env })).stdout).toBe("two")
    // The version of one key: never beside several, never negative.
    const several = await set(["--expected-version", "2", "DB_URL=a", "OTHER=b"])
    expect([several.code, several.stderr]).toEqual([
      1,
      "coffer: --expected-version is the version of one key: give one KEY=VALUE, or one KEY\n",
    ])
    expect((await set(["--expected-version", "-1", "DB_URL=a"])).code).toBe(1)
    expect((await set(["--expected-version", "1.5", "DB_URL=a"])).code).toBe(1)
    expect((await coffer(["secrets", "get", "DB_URL", "--plain"], { env })).stdout).toBe("two")
    const help = await coffer(["secrets", "set", "--help"], { env })
    expect(help.stdout).toContain("--expected-version")
  })
})

describe("coffer secrets audit", () => {
  it("prints the project's log newest first, narrowed by action, key, person and environment", async () => {
    const { secrets } = await serve()
    const { env, writeKey } = await project(secrets)
    expect((await coffer(["secrets", "set", "AUDITED=one", "OTHER=x"], { env })).code).toBe(0)
    expect((await coffer(["secrets", "get", "AUDITED"], { env })).code).toBe(0)
    expect((await coffer(["secrets", "set", "--env", "staging", "AUDITED=two"], { env })).code).toBe(0)
    const entries = async (...filters: Array<string>) => {
      const listed = await coffer(["secrets", "audit", "--json", ...filters], { env })
      expect(listed.code, listed.stderr).toBe(0)
      return (JSON.parse(listed.stdout) as Array<{ action: string; targetKey: string }>).map(
        (entry) => `${entry.action} ${entry.targetKey}`,
      )
    }
    // COFFER_ENVIRONMENT (development here) does not narrow the log: only --env does.
    expect(await entries("--key", "AUDITED")).toEqual([
      "secret.created AUDITED",
      "secret.read AUDITED",
      "secret.created AUDITED",
    ])
    expect(await entries("--key", "AUDITED", "--env", "staging")).toEqual(["secret.created AUDITED"])
    expect(await entries("--action", "secret.read")).toEqual(["secret.read AUDITED"])
    expect(await entries("--user", "ADA@example.com", "--limit", "2")).toHaveLength(2)
    expect(await entries("--user", "someone@example.com")).toEqual([])
    // Each entry whole, as the service sends it, with its environment's name beside the id.
    const [whole] = JSON.parse(
      (await coffer(["secrets", "audit", "--json", "--key", "AUDITED", "--limit", "1"], { env })).stdout,
    ) as Array<Record<string, unknown>>
    expect(Object.keys(whole!).sort()).toEqual(
      [
        "action",
        "createdAt",
        "environment",
        "environmentId",
        "apiKey",
        "id",
        "ipAddress",
        "projectId",
        "targetKey",
        "userEmail",
        "userId",
      ].sort(),
    )
    expect(whole).toMatchObject({
      environment: "staging",
      userEmail: "ada@example.com",
      targetKey: "AUDITED",
      // The command acts through its key (COFFER_TOKEN, named for its scope): the entry names it.
      apiKey: { id: writeKey.id, name: "write" },
    })

    const table = await coffer(["secrets", "audit", "--key", "AUDITED"], { env })
    const [head, newest] = table.stdout.split("\n")
    expect(head).toMatch(/^TIME\s+ACTION\s+TARGET\s+ENVIRONMENT\s+BY\s+VIA\s+FROM$/)
    expect(newest).toMatch(/\ssecret\.created\s+AUDITED\s+staging\s+ada@example\.com\s+key write\s/)

    // What the key did, apart from what its holder did with a session (creating the project, the keys).
    // `=`: an id is base64url, and one in 64 starts with `-`, which a flag's next word may not.
    const byKey = await entries(`--api-key=${writeKey.id}`)
    expect(byKey).toEqual(
      expect.arrayContaining(["secret.created AUDITED", "secret.read AUDITED", "secret.created OTHER"]),
    )
    expect(byKey.filter((entry) => entry.startsWith("project.") || entry.startsWith("api_key."))).toEqual([])
    expect(await entries(`--api-key=${writeKey.id}`, "--action", "secret.read")).toEqual(["secret.read AUDITED"])
    const session = await coffer(["secrets", "audit", "--action", "project.created"], { env })
    expect(session.stdout.split("\n")[1]).toMatch(/\sada@example\.com\s+session\s/)
    const malformed = await coffer(["secrets", "audit", "--api-key", "not-a-key"], { env })
    expect([malformed.code, malformed.stderr]).toEqual([1, expect.stringContaining("apiKey must be")])
    expect(table.stdout).not.toContain("one")

    // The service checks the filters: a 400 is a usage error that names the parameter.
    const wrong = await coffer(["secrets", "audit", "--action", "secret.peeked"], { env })
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain("action must be one of")
    expect((await coffer(["secrets", "audit", "--env", "nowhere"], { env })).code).toBe(3)
  })
})

describe("coffer secrets: keys named like the exports", () => {
  it("get json and get .env read those secrets (through their history), not the environment's exports", async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    await setAll(env, { OTHER: "not this one" })
    const path = "/api/projects/app/environments/development/secrets"
    for (const [key, value] of [
      ["json", "first json value"],
      ["json", "the json secret"],
      [".env", "the .env secret"],
    ] as const) {
      expect((await call(secrets, "POST", path, { cookie, body: { key, value } })).status).toBeLessThan(300)
    }
    const json = await coffer(["secrets", "get", "json"], { env })
    expect([json.code, json.stdout, json.stderr]).toEqual([0, "the json secret\n", ""])
    expect((await coffer(["secrets", "get", ".env", "--plain"], { env })).stdout).toBe("the .env secret")
    expect(JSON.parse((await coffer(["secrets", "get", "json", "--json"], { env })).stdout)).toEqual({
      key: "json",
      value: "the json secret",
    })
    expect((await coffer(["secrets", "delete", "json", "-y"], { env })).code).toBe(0)
    expect((await coffer(["secrets", "get", "json"], { env })).code).toBe(3)
  })
})

describe("coffer secrets: a reader that stops early", () => {
  /** Runs `coffer <args>` with its stdout closed before it writes, as `| head -c 100` leaves it. */
  const closedStdout = (args: ReadonlyArray<string>, env: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [cliBin, ...args], {
        cwd: freshDirectory(),
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      })
      child.stdout.destroy()
      let stderr = ""
      child.stderr.on("data", (chunk) => {
        stderr += chunk
      })
      child.on("close", (code) => done({ code, stderr }))
    })

  it("pull, pull --format json and list end quietly with 141 (as SIGPIPE would), never a stack trace", async () => {
    const { secrets } = await serve()
    const { env } = await project(secrets)
    await setAll(env, { A: "x".repeat(1000), B: "y" })
    for (const args of [
      ["secrets", "pull"],
      ["secrets", "pull", "--format", "json"],
      ["secrets", "list"],
    ]) {
      expect(await closedStdout(args, env), args.join(" ")).toEqual({ code: 141, stderr: "" })
    }
  })
})

describe("coffer secrets run --watch", () => {
  /** A host and a project whose development holds A=1, with a way to change A there. */
  const withA = async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    const path = "/api/projects/app/environments/development/secrets"
    const write = async (value: string) =>
      expect((await call(secrets, "POST", path, { cookie, body: { key: "A", value } })).status).toBeLessThan(300)
    await write("1")
    return { env, write }
  }

  it("restarts the command when a value it was given changes, and ends with the command's own code", async () => {
    const { secrets } = await serve()
    const { env, cookie } = await project(secrets)
    const path = "/api/projects/app/environments/development/secrets"
    const write = async (key: string, value: string) =>
      expect((await call(secrets, "POST", path, { cookie, body: { key, value } })).status).toBeLessThan(300)
    const exports = async () =>
      (await call(secrets, "GET", "/api/projects/app/audit-log?action=secrets.exported", { cookie })).body.auditLog
        .length
    await write("A", "1")
    await write("B", "1")
    const log = join(freshDirectory(), "log")
    // Each start and stop is logged; the child takes a moment to stop, so a restart that did not wait for it would
    // log the next start first. The child given A=3 ends on its own with 7.
    const script = `
      const { appendFileSync } = require("node:fs")
      const say = (line) => appendFileSync(${JSON.stringify(log)}, line + "\\n")
      say("start " + process.env.A)
      process.on("SIGTERM", () => setTimeout(() => { say("stop " + process.env.A); process.exit(0) }, 300))
      if (process.env.A === "3") setTimeout(() => process.exit(7), 100)
      else setInterval(() => {}, 1000)`
    const lines = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [])
    const until = async (done: () => boolean | Promise<boolean>) => {
      while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // A run that fails an expectation below would otherwise go on watching, and its command with it.
    const stop = new AbortController()
    onTestFinished(() => stop.abort())
    const watching = coffer(
      ["secrets", "run", "--watch", "--watch-interval", "1", "--only", "A", "--", process.execPath, "-e", script],
      { env, signal: stop.signal },
    )
    await until(() => lines().length === 1)
    const exported = await exports()
    await write("A", "2")
    await until(() => lines().length === 3)
    expect(lines()).toEqual(["start 1", "stop 1", "start 2"])

    // The same value again, and a key --only leaves out: the list moves, the values it gives the command do not.
    const before = await exports()
    expect(before).toBe(exported + 1)
    await write("A", "2")
    await write("B", "2")
    await until(async () => (await exports()) === before + 1)
    await write("A", "3")
    const ran = await watching
    expect(ran.code, ran.stderr).toBe(7)
    expect(lines()).toEqual(["start 1", "stop 1", "start 2", "stop 2", "start 3"])
    const restarted = `coffer: A changed: ${process.execPath} was stopped and starts again`
    expect(ran.stderr.split("\n").filter((line) => line.includes("changed"))).toEqual([restarted, restarted])
  }, 30_000)

  it("ends, once the run it is stopping has ended, on a signal that comes during a restart", async () => {
    const { env, write } = await withA()
    const log = join(freshDirectory(), "log")
    // Slow to stop: coffer is between two runs for a second, with no command to pass a signal on to.
    const script = `
      const { appendFileSync } = require("node:fs")
      const say = (line) => appendFileSync(${JSON.stringify(log)}, line + "\\n")
      say("start " + process.env.A)
      process.on("SIGTERM", () => { say("stopping " + process.env.A); setTimeout(() => { say("stop " + process.env.A); process.exit(0) }, 1000) })
      setInterval(() => {}, 1000)`
    const lines = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [])
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const stop = new AbortController()
    onTestFinished(() => stop.abort())
    const watching = coffer(
      ["secrets", "run", "--watch", "--watch-interval", "1", "--", process.execPath, "-e", script],
      {
        env,
        signal: stop.signal,
      },
    )
    await until(() => lines().length === 1)
    await write("2")
    await until(() => lines().includes("stopping 1"))
    // SIGTERM to coffer alone, as a process manager sends it.
    stop.abort()
    const ran = await watching
    // Not ended by the signal: it waited for the run it was stopping, and started no other.
    expect(ran.code, ran.stderr).toBe(143)
    expect(lines()).toEqual(["start 1", "stopping 1", "stop 1"])
    expect(ran.stderr).toContain(`${process.execPath} is not started again: coffer got SIGTERM`)
  }, 30_000)

  it("stops what the command started too, when a wrapper does not pass the signal on", async () => {
    const { env, write } = await withA()
    const directory = freshDirectory()
    const log = join(directory, "log")
    const server = join(directory, "server.js")
    writeFileSync(
      server,
      `const { appendFileSync } = require("node:fs")
      const say = (line) => appendFileSync(${JSON.stringify(log)}, line + "\\n")
      say("start " + process.env.A + " " + process.pid)
      process.on("SIGTERM", () => setTimeout(() => { say("stop " + process.env.A); process.exit(0) }, 300))
      setInterval(() => {}, 1000)`,
    )
    const lines = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [])
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const stop = new AbortController()
    // The servers are the shell's children: stopping coffer reaches the shell alone, and the server left holds
    // the run's output open.
    const stopAll = () => {
      stop.abort()
      for (const line of lines()) {
        try {
          process.kill(Number(line.split(" ")[2]), "SIGKILL")
        } catch {
          // Stopped already.
        }
      }
    }
    onTestFinished(stopAll)
    // `; true` keeps the shell from replacing itself with node: it forks the server, and dies alone on SIGTERM.
    const wrapped = ["sh", "-c", `"${process.execPath}" "${server}"; true`]
    const watching = coffer(["secrets", "run", "--watch", "--watch-interval", "1", "--", ...wrapped], {
      env,
      signal: stop.signal,
    })
    await until(() => lines().length === 1)
    await write("2")
    // Left running, the first server would never log its stop, and the second would start beside it.
    await until(() => lines().some((line) => line.startsWith("start 2")))
    expect(lines().map((line) => line.split(" ").slice(0, 2).join(" "))).toEqual(["start 1", "stop 1", "start 2"])
    stopAll()
    await watching
  }, 30_000)

  it("refuses --offline and an interval under a second before anything runs", async () => {
    const env = { COFFER_URL: "http://127.0.0.1:9", COFFER_TOKEN: `cfk_${"s".repeat(43)}`, COFFER_ENVIRONMENT: "dev" }
    const offline = await coffer(["secrets", "run", "--watch", "--offline", "--fallback", "f", "--", "true"], { env })
    expect([offline.code, offline.stderr]).toEqual([
      1,
      "coffer: --watch looks for changes at the service, --offline never asks it\n",
    ])
    const fast = await coffer(["secrets", "run", "--watch", "--watch-interval", "0", "--", "true"], { env })
    expect([fast.code, fast.stderr]).toEqual([1, "coffer: --watch-interval is a whole number of seconds, at least 1\n"])
  })
})

describe("coffer secrets run --fallback", () => {
  it("uses the snapshot while the host is down, and deletes it once the key is refused", async () => {
    const first = await serve()
    const { env, cookie, writeKey } = await project(first.secrets)
    await setAll(env, { DB_URL: "postgres://db/app" })
    const cwd = freshDirectory()
    const snapshot = join(cwd, "snap")
    const args = ["secrets", "run", "--project", "app", "--fallback", "snap", "--", ...printEnv(["DB_URL"])]
    expect(JSON.parse((await coffer(args, { env, cwd })).stdout)).toEqual({ DB_URL: "postgres://db/app" })
    expect(statSync(snapshot).mode & 0o777).toBe(0o600)
    expect(readFileSync(snapshot, "utf8")).not.toContain("postgres://db/app")
    await first.host.stop()
    const down = await coffer(args, { env, cwd })
    expect(down.code, down.stderr).toBe(0)
    expect(JSON.parse(down.stdout)).toEqual({ DB_URL: "postgres://db/app" })
    expect(down.stderr).toContain("using the snapshot")
    const offline = await coffer(["secrets", "run", "--offline", "--fallback", "snap", "--", ...printEnv(["DB_URL"])], {
      env,
      cwd,
    })
    expect(JSON.parse(offline.stdout)).toEqual({ DB_URL: "postgres://db/app" })
    // Another key cannot open it.
    const stranger = await coffer(["secrets", "run", "--offline", "--fallback", "snap", "--", "true"], {
      env: { ...env, COFFER_TOKEN: `cfk_${"x".repeat(43)}` },
      cwd,
    })
    expect(stranger.code).toBe(2)
    // Nor does it stand in for another service that is down: the URL is bound to it. The service's failure is the
    // reason (exit 5, what a retry waits for), and why the snapshot could not help follows it.
    const elsewhere = await coffer(args, { env: { ...env, COFFER_URL: "http://127.0.0.1:9" }, cwd })
    expect([elsewhere.code, elsewhere.stdout]).toEqual([5, ""])
    expect(elsewhere.stderr).toContain("cannot reach http://127.0.0.1:9")
    expect(elsewhere.stderr).toContain(
      `and the snapshot cannot stand in: the snapshot was taken from ${first.secrets}, not http://127.0.0.1:9`,
    )
    const none = await coffer(["secrets", "run", "--fallback", "none", "--", "true"], { env, cwd })
    expect(none.code).toBe(5)
    expect(none.stderr).toMatch(/^coffer: cannot reach .*; and the snapshot cannot stand in: no snapshot at /)
    const second = await first.restart()
    // The same database on another port: a successful run rewrites the snapshot for this URL.
    const moved = await coffer(args, { env: { ...env, COFFER_URL: second.secrets }, cwd })
    expect(moved.code, moved.stderr).toBe(0)
    const deleted = await call(second.secrets, "DELETE", `/api/api-keys/${writeKey.id}`, {
      cookie: await devLogin(second.secrets, "ada@example.com"),
    })
    expect(deleted.status).toBe(200)
    expect(cookie).not.toBe("")
    const refused = await coffer(args, { env: { ...env, COFFER_URL: second.secrets }, cwd })
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe("")
    expect(existsSync(snapshot)).toBe(false)
  })
})
