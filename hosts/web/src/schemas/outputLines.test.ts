import { describe, expect, it } from "vitest"
import { outputLines } from "./outputLines.js"

const render = (lines: ReturnType<typeof outputLines>) =>
  lines.map((line) => `${"  ".repeat(line.depth)}${line.text}`).join("\n")

describe("outputLines", () => {
  it("prints the output exactly as JSON.stringify does, one row per line", () => {
    const output = { a: { b: [1, { c: 2 }], e: {} }, 'we"ird': null, s: "x", n: [] }
    expect(render(outputLines(output, []))).toBe(JSON.stringify(output, null, 2))
    expect(render(outputLines({}, []))).toBe("{}")
  })

  it("marks each value's first row with its source, objects' own rows with none", () => {
    const lines = outputLines({ api: { url: "u", tags: ["a", "b"] }, empty: {} }, [
      { path: ["api", "url"], source: "base/1.0.0" },
      { path: ["api", "tags"], source: "ios/2.0.0" },
      { path: ["empty"], source: "web/1.0.0" },
    ])
    expect(lines.map((line) => [line.text, line.source])).toEqual([
      ["{", undefined],
      ['"api": {', undefined],
      ['"url": "u",', "base/1.0.0"],
      ['"tags": [', "ios/2.0.0"],
      ['"a",', undefined],
      ['"b"', undefined],
      ["]", undefined],
      ["},", undefined],
      ['"empty": {}', "web/1.0.0"],
      ["}", undefined],
    ])
  })

  it("prints an output nested thousands deep without recursion", () => {
    let output: Record<string, unknown> = { leaf: 1 }
    for (let level = 0; level < 5_000; level++) output = { next: output }
    expect(outputLines(output, [])).toHaveLength(5_000 * 2 + 3)
  })
})
