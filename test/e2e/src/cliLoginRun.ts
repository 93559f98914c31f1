/**
 * `coffer login --web` running as a person would start it: its stderr read as it comes, so a test can
 * take the URL and code it prints, approve in the browser or through the API, and then await how it ends.
 */
import { spawn } from "node:child_process"
import { cliBin, type Outcome } from "./cliHarness.js"

export interface WebLogin {
  /** The address and code the command printed, once it did. */
  readonly printed: Promise<{ readonly url: string; readonly code: string }>
  readonly outcome: Promise<Outcome>
  readonly interrupt: () => void
}

const PRINTED = /open (\S+) and check that it shows the code ([A-Z]{4}-[A-Z]{4})/

export const webLogin = (secrets: string, env: Record<string, string>, name = "e2e-laptop"): WebLogin =>
  runWebLogin(["login", "--web", "--no-browser", "--url", secrets, "--name", name], env)

/** `coffer <args>` for a login through the browser, e.g. as a page shows the command. */
export const runWebLogin = (args: ReadonlyArray<string>, env: Record<string, string>): WebLogin => {
  const child = spawn(process.execPath, [cliBin, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stdout = ""
  let stderr = ""
  let found: (value: { url: string; code: string }) => void = () => {}
  const printed = new Promise<{ url: string; code: string }>((resolve) => {
    found = resolve
  })
  child.stdout.on("data", (chunk) => {
    stdout += chunk
  })
  child.stderr.on("data", (chunk) => {
    stderr += chunk
    const match = PRINTED.exec(stderr)
    if (match !== null) found({ url: match[1]!, code: match[2]! })
  })
  const outcome = new Promise<Outcome>((done) => child.on("close", (code) => done({ code, stdout, stderr })))
  return { printed, outcome, interrupt: () => child.kill("SIGINT") }
}
