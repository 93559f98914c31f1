/**
 * A command `secrets run` cannot start ends the run as a shell would (126, one line naming why), also where Node
 * throws at once rather than reporting an "error" event: an environment too large for the system (E2BIG) or a name
 * too long (ENAMETOOLONG).
 */
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { runChild } from "./child.js"

const caughtStderr = () => {
  let err = ""
  vi.spyOn(process.stderr, "write").mockImplementation((text, ...rest) => {
    err += String(text)
    ;(rest.find((item) => typeof item === "function") as (() => void) | undefined)?.()
    return true
  })
  return () => err
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("runChild", () => {
  it("answers 126 and names E2BIG when the secrets make the environment too large to start with", async () => {
    const err = caughtStderr()
    // 40 values of 64 KiB (the service's most): 2.6 MB, over Linux's default of a quarter of an 8 MiB stack.
    const env = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`BIG_${i}`, "x".repeat(65_536)]))
    const code = await Effect.runPromise(runChild("true", [], { PATH: process.env.PATH, ...env }))
    expect(code).toBe(126)
    expect(err()).toMatch(/^coffer: cannot run true: .*\(E2BIG\): pass fewer with --only\n$/)
  })

  it("answers 126 and names ENAMETOOLONG for a command name longer than the system allows", async () => {
    const err = caughtStderr()
    const code = await Effect.runPromise(runChild(`/tmp/${"a".repeat(300)}`, [], { PATH: process.env.PATH }))
    expect(code).toBe(126)
    expect(err()).toContain("(ENAMETOOLONG)")
  })

  it("still answers 127 for a command that is not found", async () => {
    const err = caughtStderr()
    expect(await Effect.runPromise(runChild("no-such-command-here", [], { PATH: process.env.PATH }))).toBe(127)
    expect(err()).toContain("command not found")
  })
})
