import { describe, expect, it } from "vitest"
// The service's own parser, by path: the page links exactly the references the service reads as exact.
import { parseReference } from "../../../../core/schemas/src/domain/extendsRef.js"
import { exactReference } from "./references.js"

describe("exactReference", () => {
  it("links an exact version, and leaves latest, ranges and bad references as written", () => {
    expect(exactReference("base/1.2.0")).toEqual({ platform: "base", version: "1.2.0" })
    expect(exactReference("base/2.0.0-rc.1+build.7")).toEqual({ platform: "base", version: "2.0.0-rc.1+build.7" })
    for (const reference of ["base", "base/latest", "base/^1.0.0", "base/~1.2.0", "base/>=1.0.0", "base/1", "/1.0.0"]) {
      expect(exactReference(reference)).toBeUndefined()
    }
  })

  it("agrees with the service on which references name one exact version", () => {
    for (const reference of [
      "base/1.2.0",
      "base/1.2.0+b",
      "base",
      "base/latest",
      "base/^1.0.0",
      "base/1.0",
      "a/b/1.0.0",
    ]) {
      const parsed = parseReference(reference)
      const exact = parsed._tag === "Success" && parsed.success.spec._tag === "Exact"
      expect(exactReference(reference) !== undefined, reference).toBe(exact)
    }
  })
})
