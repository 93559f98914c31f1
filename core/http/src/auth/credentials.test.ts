import { describe, expect, it } from "vitest"
import { bearerToken, credentialsGroup } from "./credentials.js"

describe("credentials", () => {
  it("reads `Bearer <token>` in any case, with spaces or tabs around the token, and nothing else", () => {
    expect(bearerToken("Bearer cfk_abc")).toBe("cfk_abc")
    expect(bearerToken("bearer \tcfk_abc \t")).toBe("cfk_abc")
    for (const header of ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer a b", "Bearercfk_abc", " Bearer a"]) {
      expect(bearerToken(header)).toBeUndefined()
    }
  })

  it("names the failed-credential limit per service, so one service's traffic never limits the other", () => {
    expect(credentialsGroup("schemas")).toBe("schemas:credentials")
    expect(credentialsGroup("secrets")).toBe("secrets:credentials")
  })
})
