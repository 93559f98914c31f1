// The same-run reference for the secret paths on Postgres: a bare Hono route on @hono/node-server running the
// service's own statements (`SqlSecretStatements`, compiled by `pgStatements.ts`) on a pg pool of the service's
// default size, and nothing else: no credential check, no sealing, no logging, no metrics. The calls of one turn go
// as one statement (a turn's only call as the single-call one), as Coffer's `SqlStore.batched` sends them: what one
// batched round trip per read and two per write cost on this machine. Started in its own process by `load.ts`; prints `reference listening on <url>` once
// bound.
//
// REFERENCE_STATEMENTS: { [name]: { sql, slots } }, each slot `{ param }` (a value the route supplies) or `{ value }`.
// REFERENCE_CONTEXT: the fixed values: the project's slug and id, the environment's name, the user's id and address.
import { randomUUID } from "node:crypto"
import { serve } from "@hono/node-server"
import { Hono } from "hono"
import pg from "pg"

const statements = JSON.parse(process.env.REFERENCE_STATEMENTS ?? "{}")
const context = JSON.parse(process.env.REFERENCE_CONTEXT ?? "{}")
const pool = new pg.Pool({ connectionString: process.env.REFERENCE_DATABASE_URL, max: 10 })

const run = async (name, params) => {
  const { sql, slots } = statements[name]
  const result = await pool.query({
    name: `reference_${name}`,
    text: sql,
    values: slots.map((slot) => ("param" in slot ? params[slot.param] : slot.value)),
  })
  return result.rows
}

/**
 * The calls of one turn as one run of the batch statement `name`, as `SqlStore.batched` sends them: each param an
 * array of the calls' values, each row back tagged with its call's `n`; a turn's only call as the single-call
 * statement `alone(params)` names.
 */
const batched = (name, alone) => {
  let calls = []
  const send = async () => {
    const turn = calls
    calls = []
    try {
      if (turn.length === 1) {
        turn[0].resolve((await run(alone(turn[0].params), turn[0].params))[0])
        return
      }
      const columns = Object.fromEntries(
        Object.keys(turn[0].params).map((param) => [param, turn.map((call) => call.params[param] ?? null)]),
      )
      const answers = turn.map(() => [])
      for (const row of await run(name, columns)) answers[Number(row.n) - 1].push(row)
      for (const [index, call] of turn.entries()) call.resolve(answers[index][0])
    } catch (error) {
      for (const call of turn) call.reject(error)
    }
  }
  return (params) =>
    new Promise((resolve, reject) => {
      if (calls.length === 0) setImmediate(send)
      calls.push({ params, resolve, reject })
    })
}
const readAtAudited = batched("readAtAuditedBatch", () => "readAtAudited")
const projectEnvironmentSecret = batched("projectEnvironmentSecretBatch", () => "projectEnvironmentSecret")
const writeAudited = batched("writeAuditedBatch", (params) =>
  params.expectedVersion === 0 ? "createAudited" : "advanceAudited",
)

const audit = (action, key) => ({
  id: randomUUID(),
  user_id: context.userId,
  user_email: context.userEmail,
  // As the store writes it (`Accounts.emailKey`), for the audit log's person filter.
  user_email_key: context.userEmail.normalize("NFC").toLowerCase(),
  action,
  target_key: key,
  ip_address: "127.0.0.1",
  created_at: new Date().toISOString(),
})

/** What both paths reach a secret by: the bench project, its owner and environment, and the key. */
const reach = (key) => ({ slug: context.slug, userId: context.userId, name: context.environment, key })

let closing = false
const app = new Hono()
// Requests still in flight when the bench stops the reference find its pool ended: expected then, and not printed.
app.onError((error, c) => {
  if (!closing) console.error(error)
  return c.json({ error: "reference failed" }, 500)
})
app.get("/read/:key", async (c) => {
  const key = c.req.param("key")
  const row = await readAtAudited({ ...reach(key), projectId: context.projectId, ...audit("secret.read", key) })
  return row?.sealed_value == null ? c.json({ error: "not found" }, 404) : c.json(row)
})
// Writes as Coffer does them: the secret reached with its project and environment, then created or advanced with
// its version and audit record in one statement (each with the turn's others); a write another one beat starts
// over from a fresh read.
const write = async (key, value) => {
  const found = await projectEnvironmentSecret(reach(key))
  const expectedVersion = found.secret_id == null ? 0 : Number(found.secret_version)
  const params = {
    secretId: found.secret_id ?? randomUUID(),
    environmentId: found.environment_id,
    key,
    expectedVersion,
    version: expectedVersion + 1,
    value,
    empty: value === "" ? 1 : 0,
    userId: context.userId,
    at: new Date().toISOString(),
    // An ordinary write, as the service's: not a restore.
    restoredFrom: null,
    ...audit(expectedVersion === 0 ? "secret.created" : "secret.updated", key),
    project_id: found.id,
    environment_id: found.environment_id,
  }
  // No row back: another writer came first.
  const written = await writeAudited(params).catch(() => undefined)
  return written === undefined ? undefined : { created: expectedVersion === 0, version: params.version }
}

app.post("/write", async (c) => {
  const { key, value } = await c.req.json()
  for (let attempt = 0; attempt <= 100; attempt++) {
    const written = await write(key, value)
    if (written !== undefined) return c.json({ key, version: written.version }, written.created ? 201 : 200)
  }
  return c.json({ error: "conflict" }, 409)
})
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  console.log(`reference listening on http://127.0.0.1:${info.port}`)
})
process.on("SIGTERM", () => {
  closing = true
  server.close(() => pool.end().then(() => process.exit(0)))
})
