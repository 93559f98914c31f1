/**
 * Writing a private file: an existing one is replaced whole, by a new file of mode 0600 renamed over it (never
 * rewritten in place, so a crash leaves the old file or the new one); a failure names the file the user gave,
 * never the temporary one beside it.
 */
import { execFileSync } from "node:child_process"
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { writePrivateFile } from "./privateFile.js"

describe("writePrivateFile", () => {
  it("replaces an existing file by renaming a new 0600 file over it, and leaves nothing beside it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-private-"))
    const target = join(directory, ".env")
    writeFileSync(target, "HAND=edited\n")
    chmodSync(target, 0o644)
    const before = statSync(target)
    await Effect.runPromise(writePrivateFile(target, "A=1\n", { createDirectory: false }))
    const after = statSync(target)
    expect(readFileSync(target, "utf8")).toBe("A=1\n")
    expect(after.mode & 0o777).toBe(0o600)
    // Another inode: the content was written to a new file and renamed into place, not truncated and rewritten.
    expect(after.ino).not.toBe(before.ino)
    expect(readdirSync(directory)).toEqual([".env"])
  })

  it("says that a directory is in the way, and leaves no temporary file", async () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-private-"))
    const target = join(directory, "dev.env")
    mkdirSync(target)
    const failure = await Effect.runPromise(Effect.flip(writePrivateFile(target, "A=1\n", { createDirectory: false })))
    expect(failure.message).toBe(`cannot write ${target}: it is a directory`)
    expect(readdirSync(directory)).toEqual(["dev.env"])
  })

  it("makes a missing directory only when asked: a path the user named must be where they said", async () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-private-"))
    const named = join(directory, "typo", "dev.env")
    const failure = await Effect.runPromise(Effect.flip(writePrivateFile(named, "A=1\n", { createDirectory: false })))
    expect(failure.message).toBe(`cannot write ${named}: its directory ${join(directory, "typo")} does not exist`)
    expect(readdirSync(directory)).toEqual([])
    const own = join(directory, "config", "coffer.json")
    await Effect.runPromise(writePrivateFile(own, "{}", { createDirectory: true }))
    expect(statSync(join(directory, "config")).mode & 0o777).toBe(0o700)
    expect(readFileSync(own, "utf8")).toBe("{}")
  })

  it("refuses a device, a pipe or a stream (/dev/stdout, /dev/fd/N) rather than rename a file over it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-private-"))
    const fifo = join(directory, "pipe")
    execFileSync("mkfifo", [fifo])
    const pipe = await Effect.runPromise(Effect.flip(writePrivateFile(fifo, "A=1\n", { createDirectory: false })))
    expect(pipe.message).toBe(
      `cannot write ${fifo}: it is a device, a pipe or a socket (without --output, the command writes to stdout)`,
    )
    expect(lstatSync(fifo).isFIFO()).toBe(true)
    expect(readdirSync(directory)).toEqual(["pipe"])
    // As `/dev/stdout` and `/dev/fd/N` lead, whatever the descriptor is open on (here a regular file).
    const open = join(directory, "open.env")
    const fd = openSync(open, "w")
    try {
      const stream = `/proc/self/fd/${fd}`
      const failure = await Effect.runPromise(Effect.flip(writePrivateFile(stream, "A=1\n", { createDirectory: true })))
      expect(failure.message).toBe(`cannot write ${stream}: /proc/self/fd holds devices and streams, not files`)
    } finally {
      closeSync(fd)
    }
    expect(readFileSync(open, "utf8")).toBe("")
  })

  it('refuses an empty file name (`--output "$UNSET"`) without naming a temporary file', async () => {
    const failure = await Effect.runPromise(Effect.flip(writePrivateFile("", "A=1\n", { createDirectory: false })))
    expect(failure.message).toBe("the file name given is empty: give one, or leave the flag out")
  })
})
