/**
 * A wrong master key stops the start (issue 15, item 4). A key that is well-formed but not the one the data was
 * written with is refused with one line naming COFFER_MASTER_KEY: against a project's data key, and on a
 * database with no project yet against the canary sealed at its first start. `/readyz` says the same when the
 * stored data stops matching the key of a running instance.
 */
import { randomBytes } from "node:crypto"
import { createRequire } from "node:module"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { defaultHost, freshDirectory, type Host, run, start } from "./host.js"

// The SQLite driver the host uses, loaded by path (this package does not depend on it).
const hostRequire = createRequire(resolve(import.meta.dirname, "../../../hosts/node/package.json"))
/** Runs `sql` on a database file the host may have open (WAL mode), and closes it. */
// biome-ignore lint/suspicious/noExplicitAny: the driver is loaded by path, without its types.
const onFile = <A>(file: string, use: (db: any) => A): A => {
  const db = new (hostRequire("better-sqlite3"))(file)
  try {
    db.pragma("busy_timeout = 5000")
    return use(db)
  } finally {
    db.close()
  }
}

const masterKey = () => randomBytes(32).toString("base64")
const LINE = /^coffer: COFFER_MASTER_KEY does not open the data in this database/m

const running: Array<Host> = []
afterAll(async () => {
  await Promise.all(running.map((host) => host.stop("SIGKILL")))
})

/** A database file of its own, in a directory of its own. */
const freshDatabase = () => {
  const file = join(freshDirectory(), "coffer.db")
  return { file, env: { COFFER_DATABASE_URL: `sqlite:${file}`, COFFER_SECRETS_PORT: "0" } }
}

const serve = async (env: Record<string, string>) => {
  const host = await start({ host: defaultHost, args: ["serve", "--only", "secrets"], env })
  running.push(host)
  return host
}

const refusedStart = (env: Record<string, string>) =>
  run(["serve", "--only", "secrets"], { host: defaultHost, env: { COFFER_ENV: "development", ...env } })

const signIn = async (base: string) => {
  const response = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "ada@example.com" }),
  })
  expect(response.status).toBe(200)
  return response.headers.getSetCookie()[0]!.split(";")[0]!
}

describe(`the master key check at start (${defaultHost})`, () => {
  it("refuses another valid key once a project exists, naming COFFER_MASTER_KEY; the right key still starts", async () => {
    const database = freshDatabase()
    const key = masterKey()
    const first = await serve({ ...database.env, COFFER_MASTER_KEY: key })
    const cookie = await signIn(first.secrets!)
    const created = await fetch(`${first.secrets}/api/projects`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "Shop" }),
    })
    expect(created.status).toBe(201)
    await first.stop()

    const wrong = masterKey()
    const refused = await refusedStart({ ...database.env, COFFER_MASTER_KEY: wrong })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(LINE)
    expect(refused.stderr.trim().split("\n")).toHaveLength(1)
    expect(refused.stdout).not.toMatch(/listening/)
    expect(refused.stdout + refused.stderr).not.toContain(wrong)

    // During a rotation the old key, given as previous, opens the data.
    const rotating = await serve({ ...database.env, COFFER_MASTER_KEY: wrong, COFFER_MASTER_KEY_PREVIOUS: key })
    expect((await fetch(`${rotating.secrets}/readyz`)).status).toBe(200)
    await rotating.stop()
    const again = await serve({ ...database.env, COFFER_MASTER_KEY: key })
    expect((await fetch(`${again.secrets}/readyz`)).status).toBe(200)
    await again.stop()
  })

  it("lets instances mid-rotation, one on each key with the other as previous, read what either wrote", async () => {
    const database = freshDatabase()
    const [old, next] = [masterKey(), masterKey()]
    const before = await serve({ ...database.env, COFFER_MASTER_KEY: old })
    const cookie = await signIn(before.secrets!)
    await before.stop()
    // `coffer keys rotate --help`, step 2 then 3: one instance restarted on the old key with the new one as
    // previous, another already on the new key with the old one as previous.
    const [first, second] = [
      await serve({ ...database.env, COFFER_MASTER_KEY: old, COFFER_MASTER_KEY_PREVIOUS: next }),
      await serve({ ...database.env, COFFER_MASTER_KEY: next, COFFER_MASTER_KEY_PREVIOUS: old }),
    ]
    const call = (base: string, method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { "content-type": "application/json", cookie },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    for (const [writer, reader, name] of [
      [second, first, "Made on the new key"],
      [first, second, "Made on the old key"],
    ] as const) {
      const created = await call(writer.secrets!, "POST", "/api/projects", { name })
      expect(created.status).toBe(201)
      const { slug } = ((await created.json()) as { project: { slug: string } }).project
      const secrets = `/api/projects/${slug}/environments/development/secrets`
      expect((await call(writer.secrets!, "POST", secrets, { key: "K", value: name })).status).toBe(201)
      const read = await call(reader.secrets!, "GET", `${secrets}/K`)
      expect([read.status, ((await read.json()) as { secret?: { value: string } }).secret?.value]).toEqual([200, name])
    }
  })

  it("refuses a project on an instance whose key a rotation left behind, writing nothing", async () => {
    const database = freshDatabase()
    const [old, next] = [masterKey(), masterKey()]
    // An instance on the old key alone, still running when the rotation moves the canary to the new key.
    const stale = await serve({ ...database.env, COFFER_MASTER_KEY: old })
    const cookie = await signIn(stale.secrets!)
    const create = (name: string) =>
      fetch(`${stale.secrets}/api/projects`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ name }),
      })
    expect((await create("Early")).status).toBe(201)
    const rotated = await run(["keys", "rotate"], {
      env: { ...database.env, COFFER_ENV: "development", COFFER_MASTER_KEY: next, COFFER_MASTER_KEY_PREVIOUS: old },
    })
    expect(rotated.code).toBe(0)
    // Its project's data key would be wrapped under the old key, which the others are about to drop.
    const refused = await create("Late")
    expect(refused.status).toBe(503)
    expect(await refused.json()).toEqual({ error: expect.stringMatching(/^COFFER_MASTER_KEY does not open the data/) })
    const listed = await fetch(`${stale.secrets}/api/projects`, { headers: { cookie } })
    const { projects } = (await listed.json()) as { projects: Array<{ slug: string }> }
    expect(projects.map((project) => project.slug)).toEqual(["early"])
    expect(onFile(database.file, (db) => db.prepare("select count(*) as n from secrets_projects").get().n)).toBe(1)
  })

  it("refuses a start on the new key alone while a project's data key is wrapped by the old one, naming it", async () => {
    const database = freshDatabase()
    const [old, next] = [masterKey(), masterKey()]
    const stale = await serve({ ...database.env, COFFER_MASTER_KEY: old })
    const cookie = await signIn(stale.secrets!)
    for (const name of ["Early", "Late"]) {
      const created = await fetch(`${stale.secrets}/api/projects`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify({ name }),
      })
      expect(created.status).toBe(201)
    }
    const secrets = "/api/projects/late/environments/development/secrets"
    const written = await fetch(`${stale.secrets}${secrets}`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ key: "LATE", value: "written on the old key" }),
    })
    expect(written.status).toBe(201)
    await stale.stop()
    const oldWrap = onFile(
      database.file,
      (db) => db.prepare("select data_key from secrets_projects where slug = 'late'").get().data_key as string,
    )
    const rotate = (previous: string) =>
      run(["keys", "rotate"], {
        env: {
          ...database.env,
          COFFER_ENV: "development",
          COFFER_MASTER_KEY: next,
          COFFER_MASTER_KEY_PREVIOUS: previous,
        },
      })
    expect((await rotate(old)).code).toBe(0)
    // As a database written before instances checked the key at creation leaves it (or an instance on the old key
    // that created the project in the moment between its check and the rotation): one project under the old key.
    onFile(database.file, (db) =>
      db.prepare("update secrets_projects set data_key = ? where slug = 'late'").run(oldWrap),
    )

    const refused = await refusedStart({ ...database.env, COFFER_MASTER_KEY: next })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /^coffer: the data key of project late is wrapped by a master key that neither COFFER_MASTER_KEY nor COFFER_MASTER_KEY_PREVIOUS holds/m,
    )
    expect(refused.stdout).not.toMatch(/listening/)
    // Without the old key, the rotation names the one project it cannot open, once.
    const withoutOld = await run(["keys", "rotate"], {
      env: { ...database.env, COFFER_ENV: "development", COFFER_MASTER_KEY: next },
    })
    expect(withoutOld.code).toBe(1)
    expect(withoutOld.stderr.split("\n").filter((line) => line.startsWith("coffer: project "))).toEqual([
      expect.stringMatching(/^coffer: project late, data key version 1: .*not in the keyring/),
    ])
    // Rotated again with the old key as previous, the new key alone opens everything.
    expect((await rotate(old)).code).toBe(0)
    const healed = await serve({ ...database.env, COFFER_MASTER_KEY: next })
    const cookieThere = await signIn(healed.secrets!)
    const read = await fetch(`${healed.secrets}${secrets}/LATE`, { headers: { cookie: cookieThere } })
    expect([read.status, ((await read.json()) as { secret?: { value: string } }).secret?.value]).toEqual([
      200,
      "written on the old key",
    ])
  })

  it("refuses another valid key on a database with no project, by the canary sealed at its first start", async () => {
    const database = freshDatabase()
    const first = await serve({ ...database.env, COFFER_MASTER_KEY: masterKey() })
    await first.stop()
    const refused = await refusedStart({ ...database.env, COFFER_MASTER_KEY: masterKey() })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(LINE)
  })

  it("answers /readyz 503 naming COFFER_MASTER_KEY when the stored data no longer matches the running key", async () => {
    // A canary sealed under another key, taken from a database of its own.
    const other = freshDatabase()
    const otherHost = await serve({ ...other.env, COFFER_MASTER_KEY: masterKey() })
    await otherHost.stop()
    const foreign = onFile(
      other.file,
      (db) => db.prepare("select value from coffer_meta where key = 'master_key_canary'").get().value as string,
    )

    const database = freshDatabase()
    const host = await serve({ ...database.env, COFFER_MASTER_KEY: masterKey() })
    expect((await fetch(`${host.secrets}/readyz`)).status).toBe(200)
    onFile(database.file, (db) =>
      db.prepare("update coffer_meta set value = ? where key = 'master_key_canary'").run(foreign),
    )
    const ready = await fetch(`${host.secrets}/readyz`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toEqual({ error: expect.stringMatching(/^COFFER_MASTER_KEY does not open the data/) })
  })
})
