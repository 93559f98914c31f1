/**
 * `schemas get PLATFORM/VERSION`: a range written short is read as semver reads it (`^0` is any 0.x, `^0.0` any
 * 0.0.x, `~2` any 2.x), and picks what semver would; a full reference is read exactly as `@extends` reads it.
 */
import { selectVersion } from "@coffer/schemas"
import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { readReference } from "./schemasApi.js"

const AVAILABLE = ["0.0.1", "0.0.5", "0.1.0", "0.2.0", "0.2.3", "1.0.0", "2.0.5", "2.1.0", "2.1.4", "2.3.1", "3.0.0"]

const pick = (reference: string, available: ReadonlyArray<string> = AVAILABLE) => {
  const parsed = readReference(reference)
  if (Result.isFailure(parsed)) return `invalid: ${parsed.failure.reason}`
  const selected = selectVersion(parsed.success, available)
  return Result.isSuccess(selected) ? selected.success : `none: ${selected.failure.reason}`
}

describe("readReference", () => {
  it.each([
    ["app/^0", "0.2.3"],
    ["app/~0", "0.2.3"],
    ["app/^0.0", "0.0.5"],
    ["app/~0.0", "0.0.5"],
    ["app/^0.2", "0.2.3"],
    ["app/~0.1", "0.1.0"],
    ["app/^1", "1.0.0"],
    ["app/^2", "2.3.1"],
    ["app/~2", "2.3.1"],
    ["app/^2.1", "2.3.1"],
    ["app/~2.1", "2.1.4"],
    ["app/>=0", "3.0.0"],
    ["app/>=2", "3.0.0"],
    ["app/>=2.2", "3.0.0"],
  ])("%s picks %s, as semver reads it", (reference, expected) => {
    expect(pick(reference)).toBe(expected)
  })

  it("reads the audit's case: zero/^0 among 0.1.0, 0.2.0, 0.2.3", () => {
    expect(pick("zero/^0", ["0.1.0", "0.2.0", "0.2.3"])).toBe("0.2.3")
    expect(pick("zero/^0.0", ["0.1.0", "0.2.0", "0.2.3"])).toBe('none: no version of platform "zero" matches ^0.0')
  })

  it("reads full references exactly as @extends does, and keeps what was written for messages", () => {
    expect(pick("app/^2.1.0")).toBe("2.3.1")
    expect(pick("app/~2.1.0")).toBe("2.1.4")
    expect(pick("app/2.1.0")).toBe("2.1.0")
    expect(pick("app/latest")).toBe("3.0.0")
    expect(pick("app")).toBe("3.0.0")
    expect(Result.getOrThrow(readReference("app/^0")).raw).toBe("app/^0")
    expect(pick("/^2")).toMatch(/^invalid: the platform name is missing/)
    expect(pick("app/2")).toMatch(/^invalid: /)
  })
})
