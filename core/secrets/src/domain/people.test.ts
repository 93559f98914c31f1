import { describe, expect, it } from "vitest"
import { isChangeableMember, isPending, seesApiKey } from "./people.js"

const now = Date.parse("2026-01-08T00:00:00.000Z")

describe("isPending", () => {
  it("is true for an unused invite until its expiry, and false from that instant on", () => {
    expect(isPending({ usedAt: null, expiresAt: Date.parse("2026-01-08T00:00:00.001Z") }, now)).toBe(true)
    expect(isPending({ usedAt: null, expiresAt: now }, now)).toBe(false)
    expect(isPending({ usedAt: null, expiresAt: Date.parse("2026-01-01T00:00:00.000Z") }, now)).toBe(false)
  })

  it("is false for a used invite, however long it had left", () => {
    expect(
      isPending(
        { usedAt: Date.parse("2026-01-07T00:00:00.000Z"), expiresAt: Date.parse("2027-01-01T00:00:00.000Z") },
        now,
      ),
    ).toBe(false)
  })
})

describe("isChangeableMember", () => {
  it("lets every member's role and membership change but the owner's", () => {
    const project = { ownerId: "owner" }
    expect(isChangeableMember(project, "owner")).toBe(false)
    expect(isChangeableMember(project, "member")).toBe(true)
  })
})

describe("seesApiKey", () => {
  const project = { ownerId: "owner" }
  it("shows a person their own keys, in any project", () => {
    expect(seesApiKey({ userId: "member" }, project, "member")).toBe(true)
  })
  it("shows the owner every key of their project", () => {
    expect(seesApiKey({ userId: "member" }, project, "owner")).toBe(true)
  })
  it("hides other members' keys from a member", () => {
    expect(seesApiKey({ userId: "member" }, project, "other")).toBe(false)
  })
})
