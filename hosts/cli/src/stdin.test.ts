/** The hidden prompt: one typed line is the value; a paste of several lines is refused rather than cut short. */
import { PassThrough } from "node:stream"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { readHidden } from "./stdin.js"

afterEach(() => {
  vi.restoreAllMocks()
})

/** What `readHidden` answers when the terminal delivers `chunks`, one read each. */
const answer = (chunks: ReadonlyArray<string>) => {
  const terminal = Object.assign(new PassThrough(), { isTTY: true, setRawMode: vi.fn() })
  vi.spyOn(process, "stdin", "get").mockReturnValue(terminal as unknown as typeof process.stdin)
  vi.spyOn(process.stderr, "write").mockImplementation(() => true)
  const answered = Effect.runPromise(Effect.result(readHidden("Value: ")))
  for (const chunk of chunks) terminal.write(chunk)
  return answered
}

describe("readHidden", () => {
  it("takes one typed line, a line break pasted after it included", async () => {
    expect(await answer(["s3cr", "3t\r"])).toMatchObject({ _tag: "Success", success: "s3cr3t" })
    expect(await answer(["s3cr3t\r\n"])).toMatchObject({ _tag: "Success", success: "s3cr3t" })
  })

  it("refuses a paste of several lines instead of keeping the first", async () => {
    const outcome = await answer(["-----BEGIN KEY-----\rabc\r-----END KEY-----\r"])
    expect(outcome).toMatchObject({ _tag: "Failure", failure: { kind: "usage" } })
    expect(JSON.stringify(outcome)).not.toContain("abc")
  })
})
