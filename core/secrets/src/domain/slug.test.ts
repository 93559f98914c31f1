import * as Result from "effect/Result"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  deriveSlug,
  isSlug,
  PROJECT_NAME_MAX_LENGTH,
  parseProjectName,
  slugOf as previewOf,
  SLUG_MAX_LENGTH,
} from "./slug.js"

const failureOf = <A, E>(result: Result.Result<A, E>): E => Result.getOrThrow(Result.flip(result))

describe("parseProjectName", () => {
  it("trims the name and keeps everything else as typed", () => {
    expect(Result.getOrThrow(parseProjectName("  Billing API  "))).toBe("Billing API")
    expect(Result.getOrThrow(parseProjectName("Café «Zürich» 🚀"))).toBe("Café «Zürich» 🚀")
  })

  it("rejects a name that is empty after trimming", () => {
    for (const name of ["", "   ", "\t\n "])
      expect(failureOf(parseProjectName(name))).toMatchObject({
        _tag: "InvalidName",
        field: "projectName",
        message: "Project name must not be empty",
      })
  })

  it("counts characters, not UTF-16 units, against the limit of 100", () => {
    expect(Result.isSuccess(parseProjectName("🚀".repeat(PROJECT_NAME_MAX_LENGTH)))).toBe(true)
    expect(failureOf(parseProjectName("x".repeat(PROJECT_NAME_MAX_LENGTH + 1))).message).toBe(
      "Project name must be at most 100 characters, got 101",
    )
  })

  it("rejects control, format and invisible characters and unpaired surrogates, naming the code point", () => {
    for (const [name, found] of [
      ["two\nlines", "U+000A"],
      ["bell\u0007", "U+0007"],
      ["esc\u001b[31m", "U+001B"],
      ["del\u007f", "U+007F"],
      ["invoice\u202Efdp.exe", "U+202E"],
      ["zero\u200Bwidth", "U+200B"],
      ["half \ud83d", "U+D83D"],
    ] as const)
      expect(failureOf(parseProjectName(name))).toMatchObject({
        field: "projectName",
        message: `Project name must not contain control, formatting or invisible characters; found ${found}`,
      })
  })
})

describe("deriveSlug", () => {
  const slugOf = (name: string) => Result.getOrThrow(deriveSlug(name))

  it("lowercases and joins words with one dash", () => {
    expect(slugOf("Billing API")).toBe("billing-api")
    expect(slugOf("  my   project  ")).toBe("my-project")
    expect(slugOf("A/B -- C_d.e")).toBe("a-b-c-d-e")
    expect(slugOf("--x--")).toBe("x")
    expect(slugOf("v2 (beta)!")).toBe("v2-beta")
    expect(slugOf("42")).toBe("42")
  })

  it("folds accents and compatibility forms to ASCII", () => {
    expect(slugOf("Café Zürich")).toBe("cafe-zurich")
    expect(slugOf("Ångström Œuvre")).toBe("angstrom-oeuvre")
    expect(slugOf("İstanbul")).toBe("istanbul")
    expect(slugOf("ｆｕｌｌｗｉｄｔｈ ①")).toBe("fullwidth-1")
    expect(slugOf("ﬁnance")).toBe("finance")
    expect(slugOf("🄐🄑 Ⅻ")).toBe("a-b-xii")
  })

  it("spells out the Latin letters that have no accent to drop", () => {
    expect(slugOf("Straße")).toBe("strasse")
    expect(slugOf("GROẞ")).toBe("gross")
    expect(slugOf("Ærø Łódź Þór Đakovo")).toBe("aero-lodz-thor-dakovo")
  })

  it("drops what has no ASCII form", () => {
    expect(slugOf("秘密 vault 🔑")).toBe("vault")
    expect(slugOf("Москва 2024")).toBe("2024")
  })

  it("cuts at 64 characters without leaving a trailing dash", () => {
    expect(slugOf("a".repeat(100))).toBe("a".repeat(SLUG_MAX_LENGTH))
    expect(slugOf(`${"a".repeat(63)} b`)).toBe("a".repeat(63))
  })

  it("fails for a name with no letter or digit it can keep", () => {
    for (const name of ["", "---", "!!!", "🔑🔑", "秘密", " . "])
      expect(failureOf(deriveSlug(name))).toMatchObject({
        _tag: "InvalidName",
        field: "projectName",
        message: "Project name must contain at least one letter or digit, from which its URL slug is made",
      })
  })

  it("always makes a slug, or fails, for any name", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 120 }), (name) => {
        const result = deriveSlug(name)
        if (Result.isSuccess(result)) {
          expect(isSlug(result.success)).toBe(true)
          // Deriving is idempotent, so a slug typed as a name finds the same project.
          expect(slugOf(result.success)).toBe(result.success)
        } else expect(/[a-z0-9]/i.test(name.normalize("NFKD"))).toBe(false)
      }),
      { numRuns: 1000 },
    )
  })
})

describe("slugOf", () => {
  // The web app previews the slug of the name as typed; the service trims the name first (`parseProjectName`).
  const server = (name: string) => {
    const derived = deriveSlug(name.trim())
    return Result.isSuccess(derived) ? derived.success : undefined
  }

  it("is the service's slug of the trimmed name, or nothing where the service refuses the name", () => {
    for (const name of [
      "Café Élan",
      "  Acme  ",
      "Straße",
      "ØRESUND",
      "---",
      "日本",
      "a".repeat(80),
      "x - y",
      "\u3000a\u3000",
    ])
      expect(previewOf(name), name).toBe(server(name))
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 90 }), (name) => {
        expect(previewOf(name)).toBe(server(name))
      }),
      { numRuns: 2000 },
    )
  })
})

describe("isSlug", () => {
  it("accepts only what deriveSlug can produce", () => {
    for (const text of ["a", "0", "billing-api", "a1-b2-c3", "a".repeat(64)]) expect(isSlug(text), text).toBe(true)
    for (const text of ["", "-a", "a-", "a--b", "A", "a_b", "a.b", "é", "a b", "a".repeat(65), ".."])
      expect(isSlug(text), text).toBe(false)
  })
})
