import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { describeIssue } from "./failure.js"
import { decodeAnswer } from "./http.js"

const Answer = Schema.Struct({
  secrets: Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.String })),
})

const refusal = (value: unknown, options?: { readonly errors: "all" }) =>
  Effect.runSync(Effect.flip(Schema.decodeUnknownEffect(Answer)(value, options)))

describe("describeIssue", () => {
  it("says what was expected and where, on one line", () => {
    const line = describeIssue(
      refusal({
        secrets: [
          { key: "A", value: "a" },
          { key: "B", value: 42 },
        ],
      }),
    )
    expect(line).toBe("Expected string at secrets[1].value")
    expect(describeIssue(refusal({}))).toBe("Missing key at secrets")
  })

  it("counts the further problems when every one is collected", () => {
    const line = describeIssue(refusal({ secrets: [{ key: 1, value: 2 }] }, { errors: "all" }))
    expect(line).toBe("Expected string at secrets[0].key (and 1 more)")
  })

  it("never quotes the value it found, which may be a secret", () => {
    const secret = { nested: "s3cr3t-value-never-printed" }
    const failure = Effect.runSync(Effect.flip(decodeAnswer(Answer)({ secrets: [{ key: "K", value: secret }] })))
    expect(failure.message).toBe("unexpected answer from the server: Expected string at secrets[0].value")
    expect(failure.message).not.toContain("s3cr3t")
  })
})
