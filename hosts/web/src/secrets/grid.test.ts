import { describe, expect, it } from "vitest"
import type { SecretListItem } from "../api/secrets.js"
import { type Revealed, revealedKey, revealedValue } from "./grid.js"

const item = (version: number) =>
  ({ id: "s", key: "K", version, createdAt: "", updatedAt: "" }) as unknown as SecretListItem

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
})
