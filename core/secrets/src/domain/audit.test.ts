import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { AUDIT_ACTIONS, AuditAction, type AuditEvent, memberTarget, secretVersionTarget, targetKey } from "./audit.js"

describe("AuditAction", () => {
  it("is exactly the seed's eighteen action names", () => {
    expect([...AUDIT_ACTIONS].sort()).toEqual(
      [
        "api_key.created",
        "api_key.deleted",
        "api_key.rotated",
        "environment.created",
        "environment.deleted",
        "invite.created",
        "invite.deleted",
        "member.joined",
        "member.removed",
        "member.updated",
        "project.created",
        "project.deleted",
        "secret.created",
        "secret.deleted",
        "secret.read",
        "secret.restored",
        "secret.updated",
        "secrets.exported",
      ].sort(),
    )
  })

  it("decodes stored action names and refuses others", () => {
    const decode = Schema.decodeUnknownSync(AuditAction)
    for (const action of AUDIT_ACTIONS) expect(decode(action)).toBe(action)
    for (const other of ["secret.exported", "project.updated", "SECRET.READ", ""]) expect(() => decode(other)).toThrow()
  })
})

const cases: ReadonlyArray<readonly [AuditEvent, string]> = [
  [{ action: "project.created", slug: "billing-api" }, "billing-api"],
  [{ action: "project.deleted", slug: "billing-api" }, "billing-api"],
  [{ action: "environment.created", environment: "staging" }, "staging"],
  [{ action: "environment.deleted", environment: "staging" }, "staging"],
  [{ action: "secret.created", key: "API_TOKEN" }, "API_TOKEN"],
  [{ action: "secret.updated", key: "API_TOKEN" }, "API_TOKEN"],
  [{ action: "secret.deleted", key: "API_TOKEN" }, "API_TOKEN"],
  [{ action: "secret.read", key: "API_TOKEN" }, "API_TOKEN"],
  [{ action: "secret.read", key: "API_TOKEN", version: 2 }, "API_TOKEN@2"],
  [{ action: "secret.restored", key: "API_TOKEN", version: 1 }, "API_TOKEN@1"],
  [{ action: "secrets.exported", format: "dotenv" }, "dotenv"],
  [{ action: "secrets.exported", format: "json" }, "json"],
  [{ action: "api_key.created", name: "ci deploy" }, "ci deploy"],
  [{ action: "api_key.rotated", name: "ci deploy" }, "ci deploy"],
  [{ action: "api_key.deleted", name: "ci deploy" }, "ci deploy"],
  [{ action: "invite.created", role: "read" }, "read"],
  [{ action: "invite.deleted", role: "write" }, "write"],
  [{ action: "member.joined", email: "ada@example.com", role: "read" }, "ada@example.com:read"],
  [{ action: "member.updated", email: "ada@example.com", role: "write" }, "ada@example.com:write"],
  [{ action: "member.removed", email: "ada@example.com" }, "ada@example.com"],
]

describe("targetKey", () => {
  it("formats <KEY>@<n> and <email>:<role>", () => {
    expect(secretVersionTarget("DATABASE_URL", 3)).toBe("DATABASE_URL@3")
    expect(memberTarget("ada@example.com", "write")).toBe("ada@example.com:write")
  })

  it("has a case below for every action", () => {
    expect(new Set(cases.map(([event]) => event.action))).toEqual(new Set(AUDIT_ACTIONS))
  })

  it.each(cases)("%o → %s", (event, expected) => {
    expect(targetKey(event)).toBe(expected)
  })

  it("keeps the role recoverable after the last colon, whatever the e-mail", () => {
    const target = memberTarget('"odd:local"@example.com', "read")
    expect(target.slice(target.lastIndexOf(":") + 1)).toBe("read")
  })
})
