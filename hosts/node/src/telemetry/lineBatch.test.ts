import { describe, expect, it } from "vitest"
import { makeLineBatch } from "./lineBatch.js"

/** An output that keeps a copy of each write, and holds its bytes (as an asynchronous stream does) when asked. */
const recording = (options: { holds?: boolean } = {}) => {
  const writes: Array<string> = []
  const held: Array<Uint8Array> = []
  const output = {
    write: (chunk: Uint8Array | string) => {
      if (typeof chunk === "string") writes.push(chunk)
      else {
        writes.push(Buffer.from(chunk).toString("utf8"))
        if (options.holds) held.push(chunk)
      }
      return true
    },
    get writableLength() {
      return options.holds ? held.reduce((sum, chunk) => sum + chunk.length, 0) : 0
    },
  }
  return { output, writes, held }
}

describe("a batch of lines", () => {
  it("writes its lines together, in order, each with its newline, and nothing when empty", () => {
    const { output, writes } = recording()
    const batch = makeLineBatch(output, 1024)
    batch.flush()
    expect(writes).toEqual([])
    batch.add('{"a":1}')
    batch.add("ünïcödé ✓")
    expect(writes).toEqual([])
    batch.flush()
    expect(writes).toEqual(['{"a":1}\nünïcödé ✓\n'])
    batch.add("next")
    batch.flush()
    expect(writes).toEqual(['{"a":1}\nünïcödé ✓\n', "next\n"])
  })

  it("writes what it holds before a line that would not fit, and a line longer than itself alone", () => {
    const { output, writes } = recording()
    // Room is counted at three bytes a character, the most UTF-8 takes: a 20-character line asks for 61 bytes.
    const batch = makeLineBatch(output, 64)
    batch.add("x".repeat(20))
    batch.add("y".repeat(20))
    expect(writes).toEqual([`${"x".repeat(20)}\n`])
    batch.add("z".repeat(100))
    expect(writes).toEqual([`${"x".repeat(20)}\n`, `${"y".repeat(20)}\n`, `${"z".repeat(100)}\n`])
    batch.flush()
    expect(writes).toHaveLength(3)
  })

  it("never reuses bytes an output still holds", () => {
    const { output, held } = recording({ holds: true })
    const batch = makeLineBatch(output, 1024)
    batch.add("first")
    batch.flush()
    batch.add("second")
    batch.flush()
    expect(held.map((chunk) => Buffer.from(chunk).toString("utf8"))).toEqual(["first\n", "second\n"])
  })
})
