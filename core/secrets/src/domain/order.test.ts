import { describe, expect, it } from "vitest"
import { byCodeUnits, byKey, bySlug, byStage, byVersionDescending, membersOrder, newestFirst, sorted } from "./order.js"

describe("orders", () => {
  it("compares by UTF-16 code units, whatever the locale", () => {
    expect(sorted(["b", "B", "a", "é", "Z", "_"], byCodeUnits)).toEqual(["B", "Z", "_", "a", "b", "é"])
  })

  it("puts the newest first, then the greater id for records of one instant", () => {
    const rows = [
      { id: "01", createdAt: Date.parse("2026-01-01T00:00:00.000Z") },
      { id: "03", createdAt: Date.parse("2026-01-02T00:00:00.000Z") },
      { id: "02", createdAt: Date.parse("2026-01-02T00:00:00.000Z") },
    ]
    expect(sorted(rows, newestFirst).map((row) => row.id)).toEqual(["03", "02", "01"])
  })

  it("orders projects by slug, environments as a change travels, secrets by key, versions newest first", () => {
    expect(sorted([{ project: { slug: "b" } }, { project: { slug: "a-2" } }], bySlug)[0]?.project.slug).toBe("a-2")
    const environments = ["qa", "production", "Preview", "staging", "development", "demo"].map((name) => ({ name }))
    expect(sorted(environments, byStage).map((e) => e.name)).toEqual([
      "development",
      "staging",
      "production",
      "Preview",
      "demo",
      "qa",
    ])
    expect(sorted([{ key: "b" }, { key: "B" }, { key: "a" }], byKey).map((e) => e.key)).toEqual(["B", "a", "b"])
    expect(sorted([{ version: 1 }, { version: 3 }, { version: 2 }], byVersionDescending).map((v) => v.version)).toEqual(
      [3, 2, 1],
    )
  })

  it("lists the owner first, then members by joining time", () => {
    const members = [
      { userId: "c", role: "read", createdAt: Date.parse("2026-01-03T00:00:00.000Z") },
      { userId: "b", role: "write", createdAt: Date.parse("2026-01-02T00:00:00.000Z") },
      { userId: "z", role: "owner", createdAt: Date.parse("2026-01-04T00:00:00.000Z") },
      { userId: "a", role: "read", createdAt: Date.parse("2026-01-02T00:00:00.000Z") },
    ]
    expect(sorted(members, membersOrder).map((m) => m.userId)).toEqual(["z", "a", "b", "c"])
  })

  it("leaves its input alone", () => {
    const input = ["b", "a"]
    sorted(input, byCodeUnits)
    expect(input).toEqual(["b", "a"])
  })
})
