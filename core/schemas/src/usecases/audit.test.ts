import { admin, editor, makeEnvironment, tokenFor } from "@coffer/test-kit/schemas"
import { afterEach, describe, expect, it } from "vitest"
import * as AuditLog from "./audit.js"
import * as TokenAdmin from "./tokens.js"

type Environment = ReturnType<typeof makeEnvironment>
const environments: Array<Environment> = []
const environment = () => {
  const created = makeEnvironment()
  environments.push(created)
  return created
}
afterEach(async () => {
  await Promise.all(environments.splice(0).map((env) => env.dispose()))
})

describe("listAudit", () => {
  it("pages newest first with a cursor that new entries cannot shift", async () => {
    const env = environment()
    for (let i = 0; i < 5; i++) {
      env.clock.advance(i % 2 === 0 ? 1_000 : 0)
      await env.run(TokenAdmin.createToken(admin, { name: `t${i}` }))
    }
    const first = await env.run(AuditLog.listAudit(admin, { limit: 2 }))
    expect(first.entries.map((entry) => entry.detail?.name)).toEqual(["t4", "t3"])
    expect(first.next).toBeDefined()
    // An entry written meanwhile appears on no later page.
    env.clock.advance(1_000)
    await env.run(TokenAdmin.createToken(admin, { name: "late" }))
    const second = await env.run(AuditLog.listAudit(admin, { limit: 2, before: first.next }))
    expect(second.entries.map((entry) => entry.detail?.name)).toEqual(["t2", "t1"])
    const third = await env.run(AuditLog.listAudit(admin, { limit: 2, before: second.next }))
    expect(third.entries.map((entry) => entry.detail?.name)).toEqual(["t0"])
    expect(third.next).toBeUndefined()
    expect((await env.run(AuditLog.listAudit(admin, {}))).entries).toHaveLength(6)
  })

  it("checks its parameters and needs the admin permission", async () => {
    const env = environment()
    for (const limit of [0, 201, 1.5]) {
      expect((await env.flip(AuditLog.listAudit(admin, { limit })))._tag).toBe("BadRequest")
    }
    for (const before of ["nope", "01700000000000.abc", "-1.abc", "1.", "1700000000000.a b"]) {
      expect((await env.flip(AuditLog.listAudit(admin, { before })))._tag).toBe("BadRequest")
    }
    expect(AuditLog.decodeCursor("0.abc")).toEqual({ at: 0, id: "abc" })
    expect((await env.flip(AuditLog.listAudit(editor, {})))._tag).toBe("Forbidden")
    expect((await env.flip(AuditLog.listAudit(tokenFor(null), {})))._tag).toBe("Forbidden")
  })
})
