/**
 * For the CLI's own tests: runs `coffer` in process against a test service with what it writes to stdout and stderr
 * caught, so a test can hold it to its exact words and exit code.
 */
import { vi } from "vitest"
import { runCli } from "../main.js"

export interface CaughtRun {
  readonly code: number
  readonly out: string
  readonly err: string
}

/**
 * `coffer <args> -p app -e dev`, with `url` as the service and an API key of the right shape. With `stdoutTakes`,
 * stdout's reader goes away after that many writes (`| head -n 1`): every later write fails with EPIPE.
 */
export const runCaught = async (
  args: ReadonlyArray<string>,
  url: string,
  cwd: string,
  stdoutTakes = Number.POSITIVE_INFINITY,
): Promise<CaughtRun> => {
  let out = ""
  let err = ""
  const catching = (stream: NodeJS.WriteStream, into: (text: string) => void, takes = Number.POSITIVE_INFINITY) => {
    let writes = 0
    return vi.spyOn(stream, "write").mockImplementation((text, ...rest) => {
      const done = rest.find((item) => typeof item === "function") as ((error?: Error) => void) | undefined
      writes += 1
      if (writes > takes) {
        done?.(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }))
        return false
      }
      into(String(text))
      done?.()
      return true
    })
  }
  const stdout = catching(
    process.stdout,
    (text) => {
      out += text
    },
    stdoutTakes,
  )
  const stderr = catching(process.stderr, (text) => {
    err += text
  })
  const code = await runCli([...args, "-p", "app", "-e", "dev"], {
    env: { COFFER_URL: url, COFFER_TOKEN: `cfk_${"s".repeat(43)}` },
    cwd,
  }).finally(() => {
    stderr.mockRestore()
    stdout.mockRestore()
  })
  return { code, out, err }
}
