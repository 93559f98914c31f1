/**
 * `logout` says what it did: which stored keys it forgot, that there were none (and, with `--all`, not "for this
 * service"), and that a token variable still set keeps the commands signed in.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { runCli } from "../main.js"

const SECRETS = "http://127.0.0.1:9"
const SCHEMAS = "http://127.0.0.1:10"

/** The exit code and stderr of `coffer logout …` with a config file holding `tokens`. */
const logout = async (
  argv: ReadonlyArray<string>,
  tokens: Record<string, string> | undefined,
  env: Record<string, string> = {},
) => {
  const home = mkdtempSync(join(tmpdir(), "coffer-logout-"))
  if (tokens !== undefined) {
    mkdirSync(join(home, "coffer"))
    writeFileSync(join(home, "coffer", "config.json"), JSON.stringify({ url: SECRETS, schemasUrl: SCHEMAS, tokens }))
  }
  let said = ""
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
    said += String(chunk)
    rest.find((item) => typeof item === "function")?.()
    return true
  })
  const code = await runCli(["logout", ...argv], { env: { ...env, XDG_CONFIG_HOME: home }, cwd: home }).finally(() =>
    stderr.mockRestore(),
  )
  return [code, said] as const
}

describe("logout", () => {
  it("names what it forgot, and what it could not", async () => {
    const both = { [SECRETS]: `cfk_${"k".repeat(43)}`, [SCHEMAS]: `cfs_${"t".repeat(43)}` }
    expect(await logout([], both)).toEqual([
      0,
      `coffer: forgot the stored keys for ${SECRETS}, ${SCHEMAS} (revoke them in the web app if leaked)\n`,
    ])
    expect(await logout(["--all"], {})).toEqual([0, "coffer: no stored keys\n"])
    expect(await logout([], {})).toEqual([0, `coffer: no stored key for ${SECRETS}, ${SCHEMAS}\n`])
  })

  it("says that a token variable still set is still used", async () => {
    const env = { COFFER_TOKEN: `cfk_${"k".repeat(43)}` }
    expect(await logout(["--all"], { [SECRETS]: env.COFFER_TOKEN }, env)).toEqual([
      0,
      `coffer: forgot the stored key for ${SECRETS} (revoke it in the web app if leaked); COFFER_TOKEN is still set, and used\n`,
    ])
    expect(await logout([], undefined, env)).toEqual([
      0,
      "coffer: no stored keys; COFFER_TOKEN is still set, and used\n",
    ])
  })
})
