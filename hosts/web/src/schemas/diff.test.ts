import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { canonicalJson, type DiffLine, diffJson, diffLines, MAX_EDITS } from "./diff.js"

const sides = (lines: ReadonlyArray<DiffLine>) => ({
  before: lines.filter((line) => line.kind !== "added").map((line) => line.text),
  after: lines.filter((line) => line.kind !== "removed").map((line) => line.text),
})

/** The length of a longest common subsequence, by dynamic programming: what a shortest edit script keeps. */
const lcs = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  const row = new Array<number>(b.length + 1).fill(0)
  for (const x of a) {
    let diagonal = 0
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!)
      diagonal = above
    }
  }
  return row[b.length]!
}

describe("diffLines", () => {
  it("rebuilds both sides, keeps a longest common subsequence, and numbers lines", () => {
    const side = fc.array(fc.constantFrom("a", "b", "c", "d", "{", "}"), { maxLength: 30 })
    fc.assert(
      fc.property(side, side, (before, after) => {
        const lines = diffLines(before, after)
        expect(sides(lines)).toEqual({ before, after })
        expect(lines.filter((line) => line.kind === "same")).toHaveLength(lcs(before, after))
        for (const line of lines) {
          if (line.kind !== "added") expect(before[line.before - 1]).toBe(line.text)
          if (line.kind !== "removed") expect(after[line.after - 1]).toBe(line.text)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it("gives up searching past MAX_EDITS and shows the middle replaced, still exact", () => {
    const before = Array.from({ length: MAX_EDITS + 10 }, (_, index) => `b${index}`)
    const after = Array.from({ length: MAX_EDITS + 10 }, (_, index) => `a${index}`)
    const lines = diffLines(["same", ...before, "end"], ["same", ...after, "end"])
    expect(sides(lines)).toEqual({ before: ["same", ...before, "end"], after: ["same", ...after, "end"] })
    expect(lines[0]).toEqual({ kind: "same", text: "same", before: 1, after: 1 })
  })
})

describe("diffJson", () => {
  it("compares canonical JSON, so key order alone is no change", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe(
      '{\n  "a": {\n    "c": null,\n    "d": [\n      2,\n      {\n        "y": 2,\n        "z": 1\n      }\n    ]\n  },\n  "b": 1\n}',
    )
    expect(diffJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toMatchObject({ added: 0, removed: 0 })
    const changed = diffJson({ a: 1, b: 2 }, { a: 1, b: 3, c: 4 })
    expect(changed).toMatchObject({ added: 2, removed: 1 })
    expect(changed.lines.filter((line) => line.kind !== "same").map((line) => `${line.kind} ${line.text}`)).toEqual([
      'removed   "b": 2',
      'added   "b": 3,',
      'added   "c": 4',
    ])
  })
})
