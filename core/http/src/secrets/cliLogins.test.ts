/**
 * Command-line logins over HTTP: statuses and bodies of every step (each held to the OpenAPI document by the test
 * kit), the `{ error, code }` answers of a poll, the session-only approver endpoints, and the rate limit on starts.
 */
import { CLIENT_HEADER, makeService, type Service } from "@coffer/test-kit/secretsService"
import { afterEach, describe, expect, it } from "vitest"

const services: Array<Service> = []
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.runtime.dispose()))
})
const fresh = (env: Record<string, string> = {}) => {
  const service = makeService(env)
  services.push(service)
  return service
}

const setup = async (env: Record<string, string> = {}) => {
  const service = fresh(env)
  const ada = await service.signIn("ada@example.com")
  expect((await service.call("POST", "/api/projects", { as: ada.as, body: { name: "Alpha" } })).status).toBe(201)
  const started = await service.call("POST", "/api/cli-logins", { body: { name: "ada-laptop" } })
  return { ...service, ada, started }
}

describe("command-line logins", () => {
  it("start 201, pending 400 authorization_pending, approve, then one key and expired_token", async () => {
    const { call, clock, ada, started } = await setup()
    expect(started.status).toBe(201)
    const { deviceCode, userCode } = started.body
    expect(started.body).toEqual({
      deviceCode: expect.stringMatching(/^cfd_/),
      userCode: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
      verificationUrl: `https://coffer.example/cli-login?code=${userCode}`,
      expiresIn: 600,
      interval: 2,
    })
    expect(await call("POST", "/api/cli-logins/token", { body: { deviceCode } })).toMatchObject({
      status: 400,
      body: { error: "The login has not been approved yet", code: "authorization_pending" },
    })
    expect(await call("POST", "/api/cli-logins/token", { body: { deviceCode } })).toMatchObject({
      status: 400,
      body: { code: "slow_down" },
    })
    expect(await call("GET", `/api/cli-logins/${userCode}`, { as: ada.as })).toMatchObject({
      status: 200,
      body: { name: "ada-laptop", createdAt: expect.any(String), expiresAt: expect.any(String) },
    })
    expect(
      await call("POST", `/api/cli-logins/${userCode}/approve`, {
        as: ada.as,
        body: { projectSlug: "alpha", scope: "write", expiresInDays: 30 },
      }),
    ).toMatchObject({ status: 200, body: { ok: true } })
    clock.advance(2000)
    const got = await call("POST", "/api/cli-logins/token", { body: { deviceCode } })
    expect(got).toMatchObject({
      status: 200,
      body: { key: expect.stringMatching(/^cfk_/), name: "ada-laptop", scope: "write", projectSlug: "alpha" },
    })
    expect((await call("GET", "/api/projects/alpha/environments", { as: { key: got.body.key } })).status).toBe(200)
    clock.advance(2000)
    expect(await call("POST", "/api/cli-logins/token", { body: { deviceCode } })).toMatchObject({
      status: 400,
      body: { code: "expired_token" },
    })
    expect((await call("GET", `/api/cli-logins/${userCode}`, { as: ada.as })).status).toBe(404)
  })

  it("deny: access_denied; unknown codes 404; the approver endpoints are for sessions only", async () => {
    const { call, clock, ada, started } = await setup()
    const { deviceCode, userCode } = started.body
    const key = await call("POST", "/api/api-keys", { as: ada.as, body: { name: "ci", projectSlug: "alpha" } })
    const asKey = { key: key.body.key as string }
    expect((await call("GET", `/api/cli-logins/${userCode}`, { as: asKey })).status).toBe(403)
    expect(
      (await call("POST", `/api/cli-logins/${userCode}/approve`, { as: asKey, body: { projectSlug: "alpha" } })).status,
    ).toBe(403)
    expect((await call("POST", `/api/cli-logins/${userCode}/deny`, { as: asKey })).status).toBe(403)
    expect((await call("GET", `/api/cli-logins/${userCode}`)).status).toBe(401)
    expect(await call("GET", "/api/cli-logins/BBBB-BBBB", { as: ada.as })).toMatchObject({
      status: 404,
      body: { error: expect.any(String) },
    })
    expect((await call("POST", `/api/cli-logins/${userCode}/deny`, { as: ada.as })).status).toBe(200)
    clock.advance(2000)
    expect(await call("POST", "/api/cli-logins/token", { body: { deviceCode } })).toMatchObject({
      status: 400,
      body: { code: "access_denied" },
    })
    expect(
      (await call("POST", `/api/cli-logins/${userCode}/approve`, { as: ada.as, body: { projectSlug: "alpha" } }))
        .status,
    ).toBe(404)
  })

  it("bad input is 400 and changes nothing; a project out of reach is 404", async () => {
    const { call, ada, started, signIn } = await setup()
    const { userCode } = started.body
    expect((await call("POST", "/api/cli-logins", { body: { name: "x".repeat(65) } })).status).toBe(400)
    expect((await call("POST", "/api/cli-logins", { body: { name: 42 } })).status).toBe(400)
    expect((await call("POST", "/api/cli-logins/token", { body: {} })).status).toBe(400)
    const bad = { projectSlug: "alpha", expiresInDays: 0 }
    expect((await call("POST", `/api/cli-logins/${userCode}/approve`, { as: ada.as, body: bad })).status).toBe(400)
    const bob = await signIn("bob@example.com")
    expect(
      (await call("POST", `/api/cli-logins/${userCode}/approve`, { as: bob.as, body: { projectSlug: "alpha" } }))
        .status,
    ).toBe(404)
    expect((await call("GET", `/api/cli-logins/${userCode}`, { as: ada.as })).status).toBe(200)
  })

  it("counts starts and unknown device codes against the client's rate limit", async () => {
    const { call } = fresh({ COFFER_RATE_LIMIT: "3" })
    const headers = { [CLIENT_HEADER]: "203.0.113.99" }
    const statuses = []
    for (let i = 0; i < 2; i++) statuses.push((await call("POST", "/api/cli-logins", { body: {}, headers })).status)
    const unknown = { deviceCode: `cfd_${"A".repeat(43)}` }
    for (let i = 0; i < 2; i++) {
      statuses.push((await call("POST", "/api/cli-logins/token", { body: unknown, headers })).status)
    }
    expect(statuses).toEqual([201, 201, 400, 429])
    const other = { [CLIENT_HEADER]: "203.0.113.100" }
    expect((await call("POST", "/api/cli-logins", { body: {}, headers: other })).status).toBe(201)
  })
  it("counts every request naming a user code before it is looked up, so a guess that hits past the limit is refused too", async () => {
    const { call, ada, started } = await setup({ COFFER_RATE_LIMIT: "3" })
    const headers = { [CLIENT_HEADER]: "203.0.113.7" }
    const { userCode, deviceCode } = started.body
    const guess = "BCDF-GHJK" === userCode ? "BCDF-GHJM" : "BCDF-GHJK"
    const statuses = [
      (await call("GET", `/api/cli-logins/${guess}`, { as: ada.as, headers })).status,
      (await call("POST", `/api/cli-logins/${guess}/approve`, { as: ada.as, headers, body: { projectSlug: "alpha" } }))
        .status,
      (await call("POST", `/api/cli-logins/${guess}/deny`, { as: ada.as, headers })).status,
      (
        await call("POST", `/api/cli-logins/${userCode}/approve`, {
          as: ada.as,
          headers,
          body: { projectSlug: "alpha" },
        })
      ).status,
      (await call("GET", `/api/cli-logins/${userCode}`, { as: ada.as, headers })).status,
    ]
    expect(statuses).toEqual([404, 404, 404, 429, 429])
    // The refused approval approved nothing; another client is not held back.
    expect((await call("POST", "/api/cli-logins/token", { body: { deviceCode } })).body).toMatchObject({
      code: "authorization_pending",
    })
    const other = { [CLIENT_HEADER]: "203.0.113.8" }
    expect((await call("GET", `/api/cli-logins/${userCode}`, { as: ada.as, headers: other })).status).toBe(200)
  })
})
