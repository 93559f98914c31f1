/**
 * `init` writing `.coffer.json`: a failure says what went wrong (not "already exists"), an existing file is
 * refused without `--force`, and with it the old file stays until the new one is whole (a failing write, here a
 * full disk injected into `writeFileSync`, leaves it as it was, and leaves no temporary file behind).
 */
import type * as fs from "node:fs"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { writeProjectFile } from "./settingsFiles.js"

const disk = vi.hoisted(() => ({ full: false }))

vi.mock("node:fs", async (original) => {
  const real = await original<typeof fs>()
  return {
    ...real,
    writeFileSync: (...args: Parameters<typeof real.writeFileSync>) => {
      if (disk.full) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })
      return real.writeFileSync(...args)
    },
  }
})

afterEach(() => {
  disk.full = false
})

const write = (file: string, replace: boolean) =>
  Effect.runPromise(Effect.flip(writeProjectFile(file, { environment: "new" }, replace)).pipe(Effect.option))

describe("writeProjectFile", () => {
  it("reports the real cause of a failed write", async () => {
    const failure = await write(join(tmpdir(), "coffer-missing-directory", ".coffer.json"), false)
    expect(failure._tag === "Some" && failure.value.message).toMatch(
      /^cannot write .*\.coffer\.json: ENOENT: no such file or directory$/,
    )
  })

  it("refuses to touch an existing file without --force, and replaces it with --force", async () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-init-"))
    const file = join(directory, ".coffer.json")
    writeFileSync(file, '{"environment":"old"}\n')
    const refused = await write(file, false)
    expect(refused._tag === "Some" && [refused.value.kind, refused.value.message]).toEqual([
      "refused",
      `${file} already exists: pass --force to replace it`,
    ])
    expect(readFileSync(file, "utf8")).toBe('{"environment":"old"}\n')
    expect((await write(file, true))._tag).toBe("None")
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ environment: "new" })
    expect(readdirSync(directory)).toEqual([".coffer.json"])
  })

  it("with --force, keeps the old file when the new one cannot be written", async () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-init-"))
    const file = join(directory, ".coffer.json")
    writeFileSync(file, '{"environment":"old"}\n')
    disk.full = true
    const failure = await write(file, true)
    expect(failure._tag === "Some" && failure.value.message).toBe(
      `cannot write ${file}: ENOSPC: no space left on device`,
    )
    expect(readFileSync(file, "utf8")).toBe('{"environment":"old"}\n')
    expect(readdirSync(directory)).toEqual([".coffer.json"])
  })
})
