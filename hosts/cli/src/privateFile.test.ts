/** Writing a private file: a failure names the file the user gave, never the temporary one beside it. */
import { mkdirSync, mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { writePrivateFile } from "./privateFile.js"

describe("writePrivateFile", () => {
  it("says that a directory is in the way, and leaves no temporary file", async () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-private-"))
    const target = join(directory, "dev.env")
    mkdirSync(target)
    const failure = await Effect.runPromise(Effect.flip(writePrivateFile(target, "A=1\n")))
    expect(failure.message).toBe(`cannot write ${target}: it is a directory`)
    expect(readdirSync(directory)).toEqual(["dev.env"])
  })
})
