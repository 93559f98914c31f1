/**
 * Writing files that may hold secrets (`pull --output`, the user's config, fallback snapshots): created with
 * mode 0600 from the first byte, through a temporary file renamed into place, so that a reader never sees half a
 * file and no other user can open it even for a moment.
 */

import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import * as Effect from "effect/Effect"
import { type CofferFailure, usage } from "./failure.js"

export const PRIVATE_MODE = 0o600

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Why `file` is no file to replace, or `undefined` when it is one (or is not there yet): a device, a pipe or a
 * socket (`/dev/null`, a FIFO), or a name in `/dev` or `/proc` (`/dev/stdout`, `/dev/fd/3`, whatever they lead to).
 * The rename would put a regular file in the device's place (as root, `/dev/null` or `/dev/stdout` replaced for
 * every program of the machine or container), or fail on a temporary file that cannot be made there.
 */
const notAFile = (file: string): string | undefined => {
  const stats = statSync(file, { throwIfNoEntry: false })
  if (stats !== undefined && !stats.isFile() && !stats.isDirectory()) return "it is a device, a pipe or a socket"
  const directory = realpathSync(dirname(file))
  if (directory === "/dev" || directory === "/proc" || directory.startsWith("/proc/"))
    return `${dirname(file)} holds devices and streams, not files`
  return undefined
}

/**
 * Writes `data` to `file`, mode 0600, atomically. `createDirectory`: whether a missing directory is made (0700), as
 * for the command's own files; a file the user named (`--output`) must go where they said, as `curl -o` does, so
 * a mistyped directory is refused rather than made.
 */
export const writePrivateFile = (
  file: string,
  data: string | Uint8Array,
  { createDirectory }: { readonly createDirectory: boolean },
): Effect.Effect<void, CofferFailure> =>
  // An empty flag (`--output "$UNSET"`) would otherwise fail at the rename, naming the temporary file.
  file.length === 0
    ? Effect.fail(usage("the file name given is empty: give one, or leave the flag out"))
    : Effect.try({
        try: () => {
          if (createDirectory) mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
          else if (!existsSync(dirname(file))) {
            throw Object.assign(new Error(`its directory ${dirname(file)} does not exist`), { code: "ENOENT" })
          }
          const refused = notAFile(file)
          if (refused !== undefined) {
            throw new Error(createDirectory ? refused : `${refused} (without --output, the command writes to stdout)`)
          }
          const temporary = join(dirname(file), `.${randomBytes(6).toString("hex")}.coffer-tmp`)
          try {
            writeFileSync(temporary, data, { mode: PRIVATE_MODE, flag: "wx" })
            // The mode given at creation is masked by the umask; 0600 is what must hold.
            chmodSync(temporary, PRIVATE_MODE)
            renameSync(temporary, file)
          } catch (error) {
            rmSync(temporary, { force: true })
            throw error
          }
        },
        // The rename's message names the temporary file; the user named `file`.
        catch: (error) =>
          usage(
            `cannot write ${file}: ${(error as NodeJS.ErrnoException).code === "EISDIR" ? "it is a directory" : reason(error)}`,
          ),
      })

/** Removes `file` if it is there. */
export const removeFile = (file: string) =>
  Effect.try({
    try: () => rmSync(file, { force: true }),
    catch: (error) => usage(`cannot remove ${file}: ${reason(error)}`),
  })
