/** Short ranges read as semver reads them, completed to the full form that `@extends` selection takes. */
import { describe, expect, it } from "vitest"
import { completeRange } from "./schemasApi.js"

describe("completeRange", () => {
  it("completes ^M, ^M.m, >=M and ~M.m; ~M means any M.x; everything else is left alone", () => {
    expect(completeRange("app/^2")).toBe("app/^2.0.0")
    expect(completeRange("app/^2.1")).toBe("app/^2.1.0")
    expect(completeRange("app/>=3")).toBe("app/>=3.0.0")
    expect(completeRange("app/~2.1")).toBe("app/~2.1.0")
    expect(completeRange("app/~2")).toBe("app/^2.0.0")
    for (const untouched of ["app/^2.1.3", "app/2", "app/latest", "app", "app/~2.1.0-beta.1"]) {
      expect(completeRange(untouched)).toBe(untouched)
    }
  })
})
