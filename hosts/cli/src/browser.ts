/**
 * Opening a URL in the person's browser (`coffer login --web`), the way `doppler login` and `gh auth login` do: a
 * convenience only. The URL is always printed too, so a machine without a browser, or an opener that fails or is
 * missing, changes nothing: no error from here ever reaches the command.
 */
import { spawn } from "node:child_process"
import * as Effect from "effect/Effect"

/** The platform's opener and its arguments; `start` is a `cmd` builtin whose first quoted argument is a title. */
const opener = (url: string): readonly [string, ReadonlyArray<string>] => {
  if (process.platform === "darwin") return ["open", [url]]
  if (process.platform === "win32") return ["cmd", ["/c", "start", '""', url.replaceAll("&", "^&")]]
  return ["xdg-open", [url]]
}

/** Starts the opener detached and forgets it; a missing opener (`ENOENT`) is ignored. */
export const openBrowser = (url: string): Effect.Effect<void> =>
  Effect.sync(() => {
    try {
      const [command, args] = opener(url)
      const child = spawn(command, [...args], { stdio: "ignore", detached: true })
      child.on("error", () => {})
      child.unref()
    } catch {
      // No opener on this machine: the printed URL is enough.
    }
  })
