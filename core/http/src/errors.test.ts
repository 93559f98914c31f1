import {
  BadRequest,
  Conflict,
  Forbidden,
  NotFound,
  PayloadTooLarge,
  StoreUnavailable,
  TooManyRequests,
  Unauthorized,
  UnsupportedMediaType,
} from "@coffer/kernel"
import * as Cause from "effect/Cause"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { type HttpError, isHttpError, toErrorResponse } from "./errors.js"
import { responseForCause } from "./runtime.js"

const cases: ReadonlyArray<readonly [HttpError, number]> = [
  [new BadRequest({ message: "name is missing" }), 400],
  [new Unauthorized({ message: "API key has expired" }), 401],
  [new Forbidden({ message: "Tokens are read-only" }), 403],
  [new NotFound({ message: "Platform ios was not found" }), 404],
  [new Conflict({ message: "Environment exists" }), 409],
  [new PayloadTooLarge({ message: "too large" }), 413],
  [new UnsupportedMediaType({ message: "not json" }), 415],
]

describe("the error table", () => {
  it.each(cases)("answers %o with %i and its message", (error, status) => {
    expect(toErrorResponse(error)).toEqual({ status, body: { error: error.message } })
  })

  it("adds Retry-After to 429", () => {
    expect(toErrorResponse(new TooManyRequests({ message: "Too many attempts", retryAfterSeconds: 42 }))).toEqual({
      status: 429,
      body: { error: "Too many attempts" },
      headers: { "Retry-After": "42" },
    })
  })

  it("answers a store outage with 503 and no operator detail", () => {
    const response = toErrorResponse(new StoreUnavailable({ store: "cache", message: "redis://10.0.0.5 refused" }))
    expect(response).toEqual({ status: 503, body: { error: "Service unavailable" } })
  })

  it("answers anything without a row as a bare 500", () => {
    class Unmapped extends Schema.TaggedError<Unmapped>()("Unmapped", { message: Schema.String }) {}
    for (const error of [
      new Unmapped({ message: "detail" }),
      new Error("detail"),
      "detail",
      null,
      { _tag: "toString" },
    ]) {
      expect(isHttpError(error)).toBe(false)
      expect(toErrorResponse(error)).toEqual({ status: 500, body: { error: "Internal server error" } })
    }
  })
})

describe("responseForCause", () => {
  it("maps a typed failure through the table", () => {
    expect(responseForCause(Cause.fail(new NotFound({ message: "gone" })))).toEqual({
      status: 404,
      body: { error: "gone" },
    })
  })

  it("answers a defect with 500 and an interruption with 503", () => {
    expect(responseForCause(Cause.die(new Error("bug"))).status).toBe(500)
    expect(responseForCause(Cause.interrupt()).status).toBe(503)
  })
})
