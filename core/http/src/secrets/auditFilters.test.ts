/**
 * The audit log's filters over HTTP (`app.request`, in-memory adapters): what each of `action`, `key`, `user`,
 * `environment` and `apiKey` keeps, how they combine with each other and with paging, and the 400s and 404s of values that
 * mean nothing. The stores' side of the same rules is the SecretStore contract (rule 12).
 */
import { makeService, type Service } from "@coffer/test-kit/secretsService"
import { afterEach, describe, expect, it } from "vitest"

const services: Array<Service> = []
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.runtime.dispose()))
})

const P = "/api/projects/app"

/**
 * A project `app` with a trail for `DB_URL` in two environments, near misses for every filter (an environment
 * named `DB_URL`, a key `DB_URL2`, an export to `json` and a secret named `json`), and a second person.
 */
const world = async () => {
  const service = makeService()
  services.push(service)
  const { call, signIn } = service
  const ada = await signIn("ada@example.com")
  const bob = await signIn("Bob@Example.com")
  await call("POST", "/api/projects", { as: ada.as, body: { name: "App" } })
  const { token } = (await call("POST", `${P}/invites`, { as: ada.as, body: { role: "write" } })).body
  await call("POST", "/api/invites/accept", { as: bob.as, body: { token } })
  const production = `${P}/environments/production/secrets`
  const development = `${P}/environments/development/secrets`
  await call("POST", production, { as: ada.as, body: { key: "DB_URL", value: "one" } })
  await call("POST", production, { as: ada.as, body: { key: "DB_URL", value: "two" } })
  await call("GET", `${production}/DB_URL/versions/1`, { as: ada.as })
  await call("POST", `${production}/DB_URL/versions/1/restore`, { as: ada.as })
  await call("POST", production, { as: ada.as, body: { key: "DB_URL2", value: "x" } })
  await call("POST", production, { as: ada.as, body: { key: "json", value: "x" } })
  await call("GET", `${production}/json`, { as: ada.as })
  await call("POST", `${P}/environments`, { as: ada.as, body: { name: "DB_URL" } })
  await call("POST", development, { as: bob.as, body: { key: "DB_URL", value: "dev" } })
  await call("GET", `${production}/DB_URL`, { as: bob.as })
  const log = async (query: string) => {
    const answer = await call("GET", `${P}/audit-log?${query}`, { as: ada.as })
    expect(answer.status).toBe(200)
    return answer.body.auditLog.map((e: { action: string; targetKey: string }) => `${e.action} ${e.targetKey}`)
  }
  const refusal = async (query: string) => {
    const answer = await call("GET", `${P}/audit-log?${query}`, { as: ada.as })
    return { status: answer.status, error: answer.body.error as string }
  }
  return { ...service, ada, log, refusal }
}

describe("audit log filters", () => {
  it("by key: the secret's whole trail in every environment, old versions included, only secret actions", async () => {
    const { log } = await world()
    expect(await log("key=DB_URL")).toEqual([
      "secret.read DB_URL",
      "secret.created DB_URL",
      "secret.restored DB_URL@1",
      "secret.read DB_URL@1",
      "secret.updated DB_URL",
      "secret.created DB_URL",
    ])
    // A format of an export is not a secret, whatever the secret's name.
    expect(await log("key=json")).toEqual(["secret.created json"])
    expect(await log("key=DB_UR")).toEqual([])
  })

  it("by action, by person in any case, by environment; every filter together, paged over what matches", async () => {
    const { log } = await world()
    expect(await log("action=secrets.exported")).toEqual(["secrets.exported json"])
    expect(await log("action=member.joined")).toEqual(["member.joined Bob@Example.com:write"])
    expect(await log("user=BOB@example.COM")).toEqual([
      "secret.read DB_URL",
      "secret.created DB_URL",
      "member.joined Bob@Example.com:write",
    ])
    expect(await log("environment=development")).toEqual(["secret.created DB_URL"])
    expect(await log("environment=DB_URL")).toEqual(["environment.created DB_URL"])
    expect(await log("key=DB_URL&environment=production&user=ada@example.com&limit=2&offset=1")).toEqual([
      "secret.read DB_URL@1",
      "secret.updated DB_URL",
    ])
    expect(await log("key=DB_URL&action=secret.read")).toEqual(["secret.read DB_URL", "secret.read DB_URL@1"])
    expect(await log("key=DB_URL&action=secret.read&offset=2")).toEqual([])
    // No environment record is a secret's: an empty answer, not an error.
    expect(await log("key=DB_URL&action=environment.created")).toEqual([])
  })

  it("answers 400 naming the parameter for an unknown action, a bad key or an empty person", async () => {
    const { refusal } = await world()
    for (const query of ["action=secret.nope", "action=", "action=SECRET.READ"]) {
      expect(await refusal(query)).toEqual({ status: 400, error: expect.stringMatching(/^action must be one of /) })
    }
    for (const query of ["key=", "key=a%2Fb", "key=DB_URL%401", `key=${"K".repeat(257)}`]) {
      expect(await refusal(query)).toEqual({ status: 400, error: expect.stringMatching(/^key is not valid: /) })
    }
    expect(await refusal("user=")).toEqual({ status: 400, error: "user must be an e-mail address" })
    // Paging is checked first, then the filters, then the environment is looked up.
    expect((await refusal("limit=0&action=nope")).error).toMatch(/^limit/)
    expect((await refusal("action=nope&environment=nope")).status).toBe(400)
  })

  it("by API key: what was done with it, paged over what matches, found after the key is deleted", async () => {
    const { log, refusal, call, ada } = await world()
    const made = async (name: string) =>
      (await call("POST", "/api/api-keys", { as: ada.as, body: { name, projectSlug: "app", scope: "write" } })).body
    const ci = await made("ci-deploy")
    const other = await made("laptop")
    const production = `${P}/environments/production/secrets`
    await call("GET", `${production}/DB_URL`, { as: { key: ci.key } })
    await call("GET", `${production}/DB_URL`, { as: { key: other.key } })
    await call("POST", production, { as: { key: ci.key }, body: { key: "DB_URL", value: "three" } })
    await call("GET", `${production}/json`, { as: { key: ci.key } })
    // The same person with the session: not the key's doing.
    await call("GET", `${production}/DB_URL`, { as: ada.as })
    expect(await log(`apiKey=${ci.id}`)).toEqual([
      "secrets.exported json",
      "secret.updated DB_URL",
      "secret.read DB_URL",
    ])
    expect(await log(`apiKey=${other.id}`)).toEqual(["secret.read DB_URL"])
    expect(await log(`apiKey=${ci.id}&limit=1&offset=1`)).toEqual(["secret.updated DB_URL"])
    expect(await log(`apiKey=${ci.id}&action=secret.read&key=DB_URL`)).toEqual(["secret.read DB_URL"])
    await call("DELETE", `/api/api-keys/${ci.id}`, { as: ada.as })
    expect(await log(`apiKey=${ci.id}`)).toHaveLength(3)
    // An id of no key, ever: nothing, not an error (a deleted key's id is no different to tell apart).
    expect(await log(`apiKey=${"A".repeat(22)}`)).toEqual([])
    for (const query of ["apiKey=", "apiKey=ci-deploy", `apiKey=${"A".repeat(23)}`, `apiKey=${"A".repeat(21)}%2F`]) {
      expect(await refusal(query)).toEqual({ status: 400, error: expect.stringMatching(/^apiKey must be /) })
    }
  })

  it("answers 404 for an environment the project does not have (now), as the other routes do", async () => {
    const { log, refusal, call, ada } = await world()
    expect(await refusal("environment=staging2")).toEqual({ status: 404, error: "Environment not found" })
    await call("DELETE", `${P}/environments/DB_URL`, { as: ada.as })
    expect(await refusal("environment=DB_URL")).toEqual({ status: 404, error: "Environment not found" })
    // Its records stay in the log, found by other filters.
    expect(await log("action=environment.created&limit=1")).toEqual(["environment.created DB_URL"])
    await call("POST", "/api/projects", { as: ada.as, body: { name: "Other" } })
    expect((await call("GET", "/api/projects/other/audit-log?environment=DB_URL", { as: ada.as })).status).toBe(404)
  })

  it("describes every filter in the OpenAPI document, the actions as an enum", async () => {
    const service = makeService()
    services.push(service)
    const document = (await service.call("GET", "/openapi.json")).body
    const parameters: ReadonlyArray<{ name: string; in: string; description: string; schema: { enum?: unknown } }> =
      document.paths["/api/projects/{slug}/audit-log"].get.parameters
    const query = parameters.filter((parameter) => parameter.in === "query")
    expect(query.map((parameter) => parameter.name)).toEqual([
      "limit",
      "offset",
      "action",
      "key",
      "user",
      "environment",
      "apiKey",
    ])
    for (const parameter of query) expect(parameter.description).not.toBe("")
    expect(query[2]?.schema.enum).toContain("secret.restored")
  })
})
