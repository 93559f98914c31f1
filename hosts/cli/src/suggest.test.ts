/** "Did you mean …?": near words at the level typed, a command begun, the same word one level down, or nothing. */
import { describe, expect, it } from "vitest"
import { coffer } from "./command.js"
import { editDistance, nearestNames, suggestCommands } from "./suggest.js"

describe("nearestNames", () => {
  it("takes the commands a word begins, else those at the fewest edits, a swap counting as one", () => {
    expect(editDistance("lsit", "list")).toBe(1)
    expect(nearestNames("lsit", ["list", "get", "set"])).toEqual(["list"])
    expect(nearestNames("env", ["environments", "secrets"])).toEqual(["environments"])
    expect(nearestNames("st", ["set", "status"])).toEqual(["status"])
    // Two letters off a two-letter word is any word: nothing is suggested rather than a guess.
    expect(nearestNames("ls", ["get", "set", "list"])).toEqual([])
    expect(nearestNames("status", ["login", "logout", "whoami", "init", "run", "secrets"])).toEqual([])
  })
})

describe("suggestCommands", () => {
  it("names whole command lines at the level typed, and one level down when nothing is near there", () => {
    expect(suggestCommands(coffer, ["coffer", "secrets"], "lst")).toEqual(["coffer secrets list"])
    expect(suggestCommands(coffer, ["coffer"], "logn")).toEqual(["coffer login"])
    expect(suggestCommands(coffer, ["coffer"], "pull")).toEqual(["coffer secrets pull"])
    expect(suggestCommands(coffer, ["coffer"], "list")).toEqual([
      "coffer secrets list",
      "coffer environments list",
      "coffer schemas list",
    ])
    expect(suggestCommands(coffer, ["coffer"], "migrat", ["serve", "migrate"])).toEqual(["coffer migrate"])
    expect(suggestCommands(coffer, ["coffer"], "status")).toEqual([])
  })
})
