import { describe, expect, it } from "vitest"
import { localPath } from "./localPath.js"

describe("localPath", () => {
  it("keeps a path on this site, with its query", () => {
    expect(localPath("/projects/demo?key=A")).toBe("/projects/demo?key=A")
    expect(localPath("/")).toBe("/")
    expect(localPath("/%09/encoded-stays-a-path")).toBe("/%09/encoded-stays-a-path")
  })

  it("refuses another site, however it is spelled", () => {
    for (const value of ["//evil.example", "/\\evil.example", "https://evil.example", "javascript:alert(1)", "evil"])
      expect(localPath(value)).toBeUndefined()
  })

  it("refuses control characters, which the URL parser drops: /<TAB>/evil.example is //evil.example", () => {
    // The web probe's finding: the signed-in-again page linked to http://evil.example/ for ?page=%2F%09%2Fevil.example.
    for (const value of [
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r/evil.example/x",
      "/\u0000x",
      "/\u007fx",
      "/\u0085x",
    ])
      expect(localPath(value)).toBeUndefined()
  })

  it("refuses API paths and nothing given", () => {
    expect(localPath("/api/projects")).toBeUndefined()
    expect(localPath(null)).toBeUndefined()
    expect(localPath(undefined)).toBeUndefined()
    expect(localPath("")).toBeUndefined()
  })
})
