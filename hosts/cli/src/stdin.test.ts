/**
 * The prompts. The hidden one: one typed line is the value; a paste of several lines is refused rather than cut
 * short. Both: Ctrl-D gives up (exit 1, "cancelled"), Ctrl-C interrupts (exit 130, as for SIGINT).
 */
import { PassThrough } from "node:stream"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { afterEach, describe, expect, it, vi } from "vitest"
import { readHidden, readLine } from "./stdin.js"

afterEach(() => {
  vi.restoreAllMocks()
})

/** The terminal of the last `exitOf`, whose raw mode a prompt must leave off however it ends. */
let terminal = Object.assign(new PassThrough(), { isTTY: true, setRawMode: vi.fn() })

/** How `prompt` ends when the terminal delivers `chunks`, one read each. */
const exitOf = <A>(prompt: Effect.Effect<A, unknown>, chunks: ReadonlyArray<string>) => {
  terminal = Object.assign(new PassThrough(), { isTTY: true, setRawMode: vi.fn() })
  vi.spyOn(process, "stdin", "get").mockReturnValue(terminal as unknown as typeof process.stdin)
  vi.spyOn(process.stderr, "write").mockImplementation(() => true)
  const ended = Effect.runPromiseExit(prompt)
  for (const chunk of chunks) terminal.write(chunk)
  return ended
}

/** What `readHidden` answers when the terminal delivers `chunks`, one read each. */
const answer = (chunks: ReadonlyArray<string>) =>
  exitOf(Effect.result(readHidden("Value: ")), chunks).then((exit) => (Exit.isSuccess(exit) ? exit.value : exit))

const interrupted = (exit: Exit.Exit<unknown, unknown>) => Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)

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

  it("gives up on Ctrl-D and is interrupted by Ctrl-C, keeping nothing typed before, echo back on", async () => {
    const given = await answer(["s3cr", "\u0004"])
    expect(given).toMatchObject({ _tag: "Failure", failure: { kind: "usage", message: "cancelled" } })
    expect(JSON.stringify(given)).not.toContain("s3cr")
    expect(terminal.setRawMode).toHaveBeenLastCalledWith(false)
    const exit = await exitOf(readHidden("Value: "), ["s3cr", "\u0003"])
    expect(interrupted(exit)).toBe(true)
    expect(JSON.stringify(exit)).not.toContain("s3cr")
    expect(terminal.setRawMode).toHaveBeenLastCalledWith(false)
  })
})

describe("readLine", () => {
  it("answers the line typed", async () => {
    expect(await exitOf(readLine("Name: "), ["staging\r"])).toMatchObject({ _tag: "Success", value: "staging" })
  })

  // Ctrl-D ends the input on an empty line only: after text, readline takes it to delete forward, as a shell does.
  it("gives up on Ctrl-D and is interrupted by Ctrl-C", async () => {
    const ended = await exitOf(readLine("Name: "), ["\u0004"])
    expect(Exit.isFailure(ended) && !interrupted(ended)).toBe(true)
    expect(JSON.stringify(ended)).toContain("cancelled")
    expect(interrupted(await exitOf(readLine("Name: "), ["stag", "\u0003"]))).toBe(true)
  })
})
