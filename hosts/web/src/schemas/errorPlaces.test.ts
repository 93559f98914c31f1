import { describe, expect, it } from "vitest"
import { CircularDependency, InvalidSchemaContent, Unresolved } from "../../../../core/schemas/src/domain/errors.js"
import { lineOfReference, schemasNamedIn } from "./errorPlaces.js"

describe("schemasNamedIn", () => {
  it("reads the schemas of a circular chain, each once", () => {
    const message = new CircularDependency({ chain: ["a/1.0.0", "b/2.0.0+x", "a/1.0.0"] }).message
    expect(schemasNamedIn(message)).toEqual(["a/1.0.0", "b/2.0.0+x"])
  })

  it("reads the schema holding an unresolved reference or invalid content", () => {
    const unresolved = new Unresolved({
      reference: 'we"ird/^1.0.0',
      reason: "no version matches",
      referencedBy: "m/1.0.0",
    })
    expect(schemasNamedIn(unresolved.message)).toEqual(["m/1.0.0"])
    const invalid = new InvalidSchemaContent({ schema: "p/1.0.0-rc.1", reason: "content must be a plain JSON object" })
    expect(schemasNamedIn(invalid.message)).toEqual(["p/1.0.0-rc.1"])
  })

  it("names nothing when the message names no schema", () => {
    expect(schemasNamedIn(new Unresolved({ reference: "x/1.0.0", reason: "platform not found" }).message)).toEqual([])
    expect(schemasNamedIn("Invalid schema content: content must be a plain JSON object")).toEqual([])
  })
})

describe("lineOfReference", () => {
  const text = '{\n  "a": 1,\n  "@extends": [\n    "base/1.0.0",\n    "ios/^2.0.0"\n  ]\n}'

  it("finds the line where the reference a refusal names is written", () => {
    const message = new Unresolved({ reference: "ios/^2.0.0", reason: "no version matches" }).message
    expect(lineOfReference(text, ["base/1.0.0", "ios/^2.0.0"], message)).toBe(5)
  })

  it("finds the reference the refusal quotes, not one written inside it (base for base/9.9.9)", () => {
    const both = '{\n  "@extends": [\n    "base",\n    "base/9.9.9"\n  ]\n}'
    const message = new Unresolved({
      reference: "base/9.9.9",
      reason: 'version "9.9.9" of platform "base" was not found',
      referencedBy: "app/1.0.0",
    }).message
    expect(lineOfReference(both, ["base", "base/9.9.9"], message)).toBe(4)
  })

  it("finds nothing when the refusal names none of the references", () => {
    expect(lineOfReference(text, ["base/1.0.0", "ios/^2.0.0"], "Output is too large")).toBeUndefined()
  })
})
