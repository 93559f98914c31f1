/** Loading a built app from disk, and the `COFFER_WEB` setting. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { loadSettings, parseWeb, SettingsRejected } from "./config/hostSettings.js"
import { loadWebAppFrom } from "./webApp.js"

describe("loadWebAppFrom", () => {
  it("reads index.html and every other file by its path from the site root, with its media type", () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-web-"))
    mkdirSync(join(directory, "assets"))
    writeFileSync(join(directory, "index.html"), "<!doctype html>")
    writeFileSync(join(directory, "assets", "index-abc.js"), "export {}")
    writeFileSync(join(directory, "assets", "index-abc.css"), "body{}")
    writeFileSync(join(directory, "assets", "icon-abc.svg"), "<svg/>")
    const web = loadWebAppFrom(directory)!
    expect(new TextDecoder().decode(web.index)).toBe("<!doctype html>")
    expect([...web.files.keys()].sort()).toEqual([
      "/assets/icon-abc.svg",
      "/assets/index-abc.css",
      "/assets/index-abc.js",
    ])
    expect(web.files.get("/assets/index-abc.js")?.type).toBe("text/javascript; charset=utf-8")
    expect(web.files.get("/assets/index-abc.css")?.type).toBe("text/css; charset=utf-8")
    expect(web.files.get("/assets/icon-abc.svg")?.type).toBe("image/svg+xml")
  })

  it("answers undefined where nothing was built, so the host serves the API alone", () => {
    expect(loadWebAppFrom(join(tmpdir(), "coffer-web-never-built"))).toBeUndefined()
    expect(loadWebAppFrom(mkdtempSync(join(tmpdir(), "coffer-web-empty-")))).toBeUndefined()
  })
})

describe("COFFER_WEB", () => {
  it("is on by default and takes on or off", () => {
    expect(parseWeb(undefined)).toEqual(Result.succeed(true))
    expect(parseWeb("on")).toEqual(Result.succeed(true))
    expect(parseWeb("off")).toEqual(Result.succeed(false))
  })

  it("takes an empty value as unset and ignores surrounding whitespace, as every other setting does", () => {
    expect(parseWeb("")).toEqual(Result.succeed(true))
    expect(parseWeb("  ")).toEqual(Result.succeed(true))
    expect(parseWeb(" off\n")).toEqual(Result.succeed(false))
    const cwd = mkdtempSync(join(tmpdir(), "coffer-web-blank-"))
    expect(loadSettings({ COFFER_ENV: "development", COFFER_WEB: "" }, cwd).web).toBe(true)
  })

  it("refuses anything else with a line naming the setting", () => {
    const cwd = mkdtempSync(join(tmpdir(), "coffer-web-settings-"))
    expect(() => loadSettings({ COFFER_ENV: "development", COFFER_WEB: "yes" }, cwd)).toThrow(SettingsRejected)
    expect(() => loadSettings({ COFFER_ENV: "development", COFFER_WEB: "yes" }, cwd)).toThrow(
      'COFFER_WEB: expected on or off, got "yes"',
    )
    expect(loadSettings({ COFFER_ENV: "development", COFFER_WEB: "off" }, cwd).web).toBe(false)
    expect(loadSettings({ COFFER_ENV: "development" }, cwd).web).toBe(true)
  })
})
