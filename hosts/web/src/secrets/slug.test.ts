/** The slug preview agrees with the server's `deriveSlug` on every name. */
import { deriveSlug } from "@coffer/secrets"
import * as Result from "effect/Result"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { slugOf } from "./slug.js"

const server = (name: string) => {
  const derived = deriveSlug(name.trim())
  return Result.isSuccess(derived) ? derived.success : undefined
}

describe("slugOf", () => {
  it.each(["Café Élan", "  Acme  ", "Straße", "ØRESUND", "---", "日本", "a".repeat(80), "x - y"])("%s", (name) => {
    expect(slugOf(name)).toBe(server(name))
  })

  it("matches deriveSlug on arbitrary names", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 90 }), (name) => {
        expect(slugOf(name)).toBe(server(name))
      }),
      { numRuns: 2000 },
    )
  })
})
