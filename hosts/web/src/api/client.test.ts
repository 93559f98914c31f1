/** What a refusal says: the server's message, or what its status means, with the wait of a 429. */
import { describe, expect, it } from "vitest"
import { ApiError, describeError } from "./client.js"

describe("describeError", () => {
  it.each([
    [new ApiError(400, "Secret key must not be empty"), "Secret key must not be empty"],
    [new ApiError(403, "Read members cannot change secrets"), "Not allowed: Read members cannot change secrets"],
    [new ApiError(404, "Project not found"), "Project not found"],
    [new ApiError(404, "No such invite"), "Not found: No such invite"],
    [new ApiError(403, "Not allowed for read members"), "Not allowed for read members"],
    [new ApiError(409, "Environment exists"), "Environment exists"],
    [new ApiError(413, "Value is 70000 bytes"), "Too large: Value is 70000 bytes"],
    [new ApiError(429, "Too many requests", 17), "Too many attempts. Wait 17 seconds, then try again."],
    [new ApiError(429, "Too many requests"), "Too many attempts. Wait 60 seconds, then try again."],
    [
      new ApiError(503, "Service unavailable"),
      "The service is unavailable right now (Service unavailable). Try again in a moment.",
    ],
    [new ApiError(0, "Network error"), "The server could not be reached. Check your connection and try again."],
    [new Error("plain"), "plain"],
  ])("%s", (error, sentence) => {
    expect(describeError(error)).toBe(sentence)
  })
})
