import { Identity } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { groupsOf, schemasSignedIn } from "./signIn.js"

const signedIn = (claims: Record<string, unknown>): Identity.SignedIn => ({
  issuer: "https://idp.example",
  subject: "ada",
  email: "ada@example.com",
  claims,
})

describe("schemas sign-in", () => {
  it("reads the roles claim as a list of strings or a single string", () => {
    expect(groupsOf({ groups: ["a", 1, "b", null] }, "groups")).toEqual(["a", "b"])
    expect(groupsOf({ groups: "admins" }, "groups")).toEqual(["admins"])
    expect(groupsOf({ groups: "" }, "groups")).toEqual([])
    expect(groupsOf({ groups: { admins: true } }, "groups")).toEqual([])
    expect(groupsOf({}, "groups")).toEqual([])
  })

  it("records the subject, the e-mail and the groups of the claim named at sign-in", async () => {
    let claim = "groups"
    const step = schemasSignedIn(() => claim)
    const claims = { groups: ["editors"], roles: "admins" }
    expect(await Effect.runPromise(step(signedIn(claims)))).toEqual({
      userId: "ada",
      email: "ada@example.com",
      groups: ["editors"],
    })
    claim = "roles"
    expect((await Effect.runPromise(step(signedIn(claims)))).groups).toEqual(["admins"])
  })

  it("refuses a sign-in without an e-mail address (reason email)", async () => {
    const failure = await Effect.runPromise(
      Effect.flip(schemasSignedIn(() => "groups")({ ...signedIn({}), email: undefined })),
    )
    expect(failure).toBeInstanceOf(Identity.IdentityError)
    expect(failure.reason).toBe("email")
  })
})
