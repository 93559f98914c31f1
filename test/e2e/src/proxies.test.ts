/**
 * `COFFER_TRUSTED_PROXIES` through a real host: the socket peer the host sees decides whether `X-Forwarded-For`
 * and `X-Forwarded-Proto` are believed. A client speaking from the trusted proxy's address has its forwarded
 * client recorded in the audit log and counted by the rate limit, and gets a `Secure` cookie when the proxy says
 * https; any other peer is itself, whatever it forwards. A bad value stops the start with one line naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientFrom, freshAddress } from "./clientFrom.js"
import { defaultHost, type Host, run, start } from "./host.js"

describe(`trusted proxies (${defaultHost})`, () => {
  const proxyAddress = freshAddress()
  let host: Host

  beforeAll(async () => {
    host = await start({
      args: ["serve", "--only", "secrets"],
      env: { COFFER_TRUSTED_PROXIES: `${proxyAddress}, fd00::/8`, COFFER_RATE_LIMIT: "2" },
    })
  })

  afterAll(async () => {
    await host?.stop()
  })

  it("records the forwarded client in the audit log only when the peer is trusted", async () => {
    const base = host.secrets!
    const proxy = clientFrom(proxyAddress)
    const stranger = clientFrom(freshAddress())
    const forwarded = { "x-forwarded-for": "192.0.2.10, 198.51.100.77" }
    const cookie = await proxy.signIn(base, "ada@example.com", forwarded)
    const create = (client: typeof proxy, name: string) =>
      client.call(base, "POST", "/api/projects", { cookie, body: { name }, headers: forwarded })
    expect((await create(proxy, "Behind")).status).toBe(201)
    expect((await create(stranger, "Direct")).status).toBe(201)
    const addressOf = async (slug: string) =>
      (await proxy.call(base, "GET", `/api/projects/${slug}/audit-log`, { cookie })).body.auditLog[0].ipAddress
    expect(await addressOf("behind")).toBe("198.51.100.77")
    expect(await addressOf("direct")).not.toBe("198.51.100.77")
  })

  it("counts each forwarded client on its own behind the proxy", async () => {
    const base = host.secrets!
    const proxy = clientFrom(proxyAddress)
    const from = (address: string) => proxy.devLogin(base, "ada@example.com", { "x-forwarded-for": address })
    const statuses = [await from("198.51.100.1"), await from("198.51.100.1"), await from("198.51.100.1")]
    expect(statuses.map((reply) => reply.status)).toEqual([200, 200, 429])
    expect((await from("198.51.100.2")).status).toBe(200)
    // A peer that is not trusted is counted as itself, whatever it claims to forward.
    const stranger = clientFrom(freshAddress())
    const claims = ["192.0.2.1", "192.0.2.2", "192.0.2.3"]
    const strangerStatuses = []
    for (const claim of claims) {
      strangerStatuses.push((await stranger.devLogin(base, "ada@example.com", { "x-forwarded-for": claim })).status)
    }
    expect(strangerStatuses).toEqual([200, 200, 429])
  })

  it("sets Secure on the cookie when the trusted proxy forwards https, never for another peer", async () => {
    const base = host.secrets!
    const https = { "x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.90" }
    const behind = await clientFrom(proxyAddress).devLogin(base, "ada@example.com", https)
    expect(behind.setCookie[0]).toMatch(/;\s*Secure/i)
    const direct = await clientFrom(freshAddress()).devLogin(base, "ada@example.com", https)
    expect(direct.status).toBe(200)
    expect(direct.setCookie[0]).not.toMatch(/Secure/i)
  })

  it("refuses to start with a value that is neither an address nor a range, naming it", async () => {
    const result = await run(["serve"], {
      env: { COFFER_ENV: "development", COFFER_TRUSTED_PROXIES: "10.0.0.0/8, proxy.internal" },
    })
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain("COFFER_TRUSTED_PROXIES: expected comma-separated addresses or CIDR ranges")
    expect(result.stderr).toContain('"proxy.internal"')
  })
})
