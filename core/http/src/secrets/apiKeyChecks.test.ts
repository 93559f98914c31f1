/**
 * API-key checks are cached (`@coffer/secrets` `apiKeyChecks.ts`): over HTTP, a key whose check is cached is still
 * refused on the very next request once it is deleted, and acts with its holder's new address once a sign-in has
 * changed it (the audit trail names the person as they are now).
 */
import { makeService, type Service } from "@coffer/test-kit/secretsService"
import { afterEach, expect, it } from "vitest"

let service: Service | undefined
afterEach(() => service?.runtime.dispose())

const SECRET = "/api/projects/alpha/environments/development/secrets/API_URL"

const setup = async () => {
  service = makeService()
  const { call, signIn } = service
  const ada = await signIn("ada@example.com")
  await call("POST", "/api/projects", { as: ada.as, body: { name: "Alpha" } })
  await call("POST", "/api/projects/alpha/environments/development/secrets", {
    as: ada.as,
    body: { key: "API_URL", value: "https://api.example.com" },
  })
  const created = await call("POST", "/api/api-keys", { as: ada.as, body: { name: "ci", projectSlug: "alpha" } })
  const key = { key: created.body.key as string }
  expect((await call("GET", SECRET, { as: key })).status).toBe(200)
  return { ada, key, id: created.body.id as string }
}

it("refuses a deleted key on the next request though its check was cached", async () => {
  const { ada, key, id } = await setup()
  const { call } = service!
  expect((await call("GET", SECRET, { as: key })).status).toBe(200)
  expect((await call("DELETE", `/api/api-keys/${id}`, { as: ada.as })).status).toBe(200)
  expect(await call("GET", SECRET, { as: key })).toMatchObject({ status: 401, body: { error: "Invalid API key" } })
})

it("records a key's reads under its holder's new address once a sign-in has changed it", async () => {
  const { key } = await setup()
  const { call, signIn } = service!
  // The development identity is the address in lower case: signing in as another spelling changes the address.
  const renamed = await signIn("Ada@Example.com")
  expect((await call("GET", SECRET, { as: key })).status).toBe(200)
  const { auditLog } = (await call("GET", "/api/projects/alpha/audit-log", { as: renamed.as })).body
  const reads = auditLog.filter((entry: { action: string }) => entry.action === "secret.read")
  expect(reads.map((entry: { userEmail: string }) => entry.userEmail)).toEqual(["Ada@Example.com", "ada@example.com"])
})
