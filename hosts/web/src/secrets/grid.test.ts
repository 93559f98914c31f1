import { describe, expect, it } from "vitest"
import type { SecretListItem } from "../api/secrets.js"
import { type Revealed, revealedKey, revealedValue } from "./grid.js"

const item = (version: number) =>
  ({ id: "s", key: "K", version, empty: false, createdAt: "", updatedAt: "" }) satisfies SecretListItem

describe("revealed values", () => {
  const revealed: Revealed = new Map([[revealedKey("dev", "K"), { value: "old", version: 1 }]])

  it("shows a value only for the version the list shows now", () => {
    expect(revealedValue(revealed, "dev", "K", item(1))).toBe("old")
    // Saved elsewhere since: the older value is not shown under the newer version.
    expect(revealedValue(revealed, "dev", "K", item(2))).toBeUndefined()
    // Deleted since, or never revealed here.
    expect(revealedValue(revealed, "dev", "K", undefined)).toBeUndefined()
    expect(revealedValue(revealed, "prod", "K", item(1))).toBeUndefined()
  })

  it("shows a value newer than the list (saved here, the list not reloaded yet), even over an empty one", () => {
    const saved: Revealed = new Map([[revealedKey("dev", "K"), { value: "new", version: 3 }]])
    expect(revealedValue(saved, "dev", "K", item(2))).toBe("new")
    expect(revealedValue(saved, "dev", "K", { ...item(2), empty: true })).toBe("new")
    // Deleted since: nothing is shown, however new the value revealed.
    expect(revealedValue(saved, "dev", "K", undefined)).toBeUndefined()
  })

  it("shows an empty value from the list without a reveal, and an older reveal not over a newer empty one", () => {
    expect(revealedValue(new Map(), "dev", "K", { ...item(1), empty: true })).toBe("")
    expect(revealedValue(revealed, "dev", "K", { ...item(2), empty: true })).toBe("")
  })
})
