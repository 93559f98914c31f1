import { describe, expect, it } from "vitest"
import type { SecretListItem } from "../api/secrets.js"
import { type Revealed, revealedKey, revealedValue, type Writes, withWrites } from "./grid.js"

const item = (version: number) =>
  ({ id: "s", key: "K", version, empty: false, createdAt: "", updatedAt: "" }) satisfies SecretListItem

describe("revealed values", () => {
  const revealed: Revealed = new Map([[revealedKey("dev", "K"), { value: "old", version: 1, before: 1 }]])

  it("shows a value only for the version the list shows now", () => {
    expect(revealedValue(revealed, "dev", "K", item(1), 1)).toBe("old")
    expect(revealedValue(revealed, "dev", "K", item(1), 2)).toBe("old")
    // Saved elsewhere since: the older value is not shown under the newer version.
    expect(revealedValue(revealed, "dev", "K", item(2), 2)).toBeUndefined()
    // Deleted since, or never revealed here.
    expect(revealedValue(revealed, "dev", "K", undefined, 2)).toBeUndefined()
    expect(revealedValue(revealed, "prod", "K", item(1), 2)).toBeUndefined()
  })

  it("shows a value newer than a list loaded before it (the list not reloaded yet), even over an empty one", () => {
    const saved: Revealed = new Map([[revealedKey("dev", "K"), { value: "new", version: 3, before: 4 }]])
    expect(revealedValue(saved, "dev", "K", item(2), 4)).toBe("new")
    expect(revealedValue(saved, "dev", "K", { ...item(2), empty: true }, 4)).toBe("new")
    // Deleted since: nothing is shown, however new the value revealed.
    expect(revealedValue(saved, "dev", "K", undefined, 4)).toBeUndefined()
  })

  it("hides a value a list loaded after it does not have: the key deleted and added again elsewhere", () => {
    // Versions start again at 1: the newer version revealed here is not the key's value now.
    const read: Revealed = new Map([[revealedKey("dev", "K"), { value: "old", version: 3, id: "s", before: 4 }]])
    expect(revealedValue(read, "dev", "K", item(1), 5)).toBeUndefined()
    // The same version of another secret (a new id) is not the one revealed.
    const first: Revealed = new Map([[revealedKey("dev", "K"), { value: "old", version: 1, id: "s", before: 4 }]])
    expect(revealedValue(first, "dev", "K", { ...item(1), id: "t" }, 5)).toBeUndefined()
    expect(revealedValue(first, "dev", "K", item(1), 5)).toBe("old")
    // A key added here has no id yet: its value stays shown under it.
    expect(revealedValue(first, "dev", "K", { ...item(1), id: "" }, 4)).toBe("old")
  })

  it("shows an empty value from the list without a reveal, and an older reveal not over a newer empty one", () => {
    expect(revealedValue(new Map(), "dev", "K", { ...item(1), empty: true }, 1)).toBe("")
    expect(revealedValue(revealed, "dev", "K", { ...item(2), empty: true }, 2)).toBe("")
  })
})

describe("writes made on the page", () => {
  const listed = { ...item(1), key: "A" }
  const saved = { ...item(2), key: "A" }
  const write = (entry: SecretListItem | undefined, before: number): Writes =>
    new Map([[revealedKey("dev", "A"), { environment: "dev", key: "A", item: entry, before }]])

  it("are shown over a list loaded before they were answered, added, changed or deleted", () => {
    expect(withWrites([[listed], []], ["dev", "prod"], write(saved, 1), 1)).toEqual([[saved], []])
    expect(withWrites([[], []], ["dev", "prod"], write(saved, 1), 1)).toEqual([[saved], []])
    expect(withWrites([[listed, { ...item(1), key: "B" }]], ["dev"], write(undefined, 2), 1)).toEqual([
      [{ ...item(1), key: "B" }],
    ])
    expect(withWrites([[listed]], ["prod"], write(undefined, 1), 1)).toEqual([[listed]])
  })

  it("give way to a list loaded after them, which may hold a change made elsewhere since", () => {
    const elsewhere = { ...item(3), key: "A" }
    expect(withWrites([[elsewhere]], ["dev"], write(saved, 1), 2)).toEqual([[elsewhere]])
    expect(withWrites([[]], ["dev"], write(saved, 1), 2)).toEqual([[]])
  })
})
