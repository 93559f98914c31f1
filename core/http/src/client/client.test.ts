/**
 * The trusted-proxy rule through a whole app: the audit log's address, the per-client rate limit and the
 * session cookie's `Secure` follow `X-Forwarded-For` and `X-Forwarded-Proto` only from a trusted peer (the test
 * kit's host names the peer in a header).
 */
import { CLIENT_HEADER, makeService } from "@coffer/test-kit/secretsService"
import { describe, expect, it } from "vitest"

const PROXY = "10.0.0.5"
const STRANGER = "203.0.113.1"
const env = { COFFER_TRUSTED_PROXIES: "10.0.0.0/8, fd00::/8" }

const auditAddress = async (peer: string, forwardedFor: string) => {
  const service = makeService(env)
  const ada = await service.signIn("ada@example.com")
  const created = await service.call("POST", "/api/projects", {
    as: ada.as,
    body: { name: "App" },
    headers: { [CLIENT_HEADER]: peer, "x-forwarded-for": forwardedFor },
  })
  expect(created.status).toBe(201)
  const log = await service.call("GET", "/api/projects/app/audit-log", { as: ada.as })
  return log.body.auditLog[0].ipAddress
}

describe("the client behind a trusted proxy", () => {
  it("records the forwarded client in the audit log, and the peer when the peer is not trusted", async () => {
    expect(await auditAddress(PROXY, "1.1.1.1, 198.51.100.7")).toBe("198.51.100.7")
    expect(await auditAddress(STRANGER, "198.51.100.7")).toBe(STRANGER)
  })

  it("rate-limits each forwarded client on its own, and an untrusted peer as itself whatever it forwards", async () => {
    const service = makeService({ ...env, COFFER_RATE_LIMIT: "2" })
    const bad = { key: `cfk_${"b".repeat(43)}` }
    const attempt = async (peer: string, forwardedFor: string) =>
      (
        await service.call("GET", "/api/projects", {
          as: bad,
          headers: { [CLIENT_HEADER]: peer, "x-forwarded-for": forwardedFor },
        })
      ).status
    const first = [await attempt(PROXY, "198.51.100.1"), await attempt(PROXY, "198.51.100.1")]
    expect([...first, await attempt(PROXY, "198.51.100.1")]).toEqual([401, 401, 429])
    // Another client behind the same proxy has its own count.
    expect(await attempt(PROXY, "198.51.100.2")).toBe(401)
    // A stranger cannot spread its attempts over made-up addresses.
    const stranger = [await attempt(STRANGER, "192.0.2.1"), await attempt(STRANGER, "192.0.2.2")]
    expect([...stranger, await attempt(STRANGER, "192.0.2.3")]).toEqual([401, 401, 429])
  })

  it("sets Secure on the session cookie when a trusted proxy says the client spoke https", async () => {
    const service = makeService({ ...env, COFFER_PUBLIC_ORIGIN: "http://coffer.test" })
    const cookieLine = async (peer: string) => {
      const response = await service.app.request("http://coffer.test/api/auth/dev-login", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          [CLIENT_HEADER]: peer,
          "x-forwarded-proto": "https",
        },
        body: JSON.stringify({ email: "ada@example.com" }),
      })
      expect(response.status).toBe(200)
      return response.headers.getSetCookie()[0]!
    }
    expect(await cookieLine(PROXY)).toMatch(/;\s*Secure/i)
    expect(await cookieLine(STRANGER)).not.toMatch(/Secure/i)
  })
})
