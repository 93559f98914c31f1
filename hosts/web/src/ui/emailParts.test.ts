import { describe, expect, it } from "vitest"
import { emailParts } from "./emailParts.js"

describe("emailParts", () => {
  it("breaks after the @ and the domain's dots, never inside a label of the domain nor before its last", () => {
    expect(emailParts("ada.lovelace-king+audit@mail.example-corp.co.uk")).toEqual([
      "ada.",
      "lovelace-",
      "king+",
      "audit@",
      "mail.",
      "example-corp.",
      "co.uk",
    ])
    expect(emailParts("ada@example.com")).toEqual(["ada@", "example.com"])
    expect(emailParts("ada@localhost")).toEqual(["ada@", "localhost"])
  })

  it("takes the last @ as the domain's start, and splits text without one as a local part", () => {
    expect(emailParts('"a@b"@example.com')).toEqual(['"a@', 'b"@', "example.com"])
    expect(emailParts("token:ci-reader")).toEqual(["token:ci-", "reader"])
    expect(emailParts("")).toEqual([])
  })
})
