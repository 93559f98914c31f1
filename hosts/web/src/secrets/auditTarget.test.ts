/** The audit log's targets read out, from the compact forms the service records (seed 001 §2). */
import { describe, expect, it } from "vitest"
import { auditTarget } from "./auditTarget.js"

describe("auditTarget", () => {
  it.each([
    ["member.updated", "bob@example.com:read", { text: "bob@example.com, Can read", code: false }],
    ["member.joined", "bob@example.com:write", { text: "bob@example.com, Can write", code: false }],
    ["member.removed", "bob@example.com", { text: "bob@example.com", code: false }],
    ["invite.created", "write", { text: "Can write", code: false }],
    ["invite.deleted", "read", { text: "Can read", code: false }],
    ["secrets.exported", "dotenv", { text: ".env", code: false }],
    ["secrets.exported", "json", { text: "JSON", code: false }],
    ["secret.read", "API_URL@3", { text: "API_URL, version 3", code: true }],
    ["secret.restored", "API_URL@12", { text: "API_URL, version 12", code: true }],
    ["secret.read", "API_URL", { text: "API_URL", code: true }],
    // Only a whole version number after the `@` is a version.
    ["secret.read", "API_URL@01", { text: "API_URL@01", code: true }],
    ["api_key.created", "ci deploy", { text: "ci deploy", code: false }],
    ["environment.created", "staging", { text: "staging", code: false }],
    ["project.created", "payments", { text: "payments", code: true }],
    ["some.future_action", "x:y", { text: "x:y", code: true }],
  ])("%s %s", (action, target, shown) => {
    expect(auditTarget(action, target)).toEqual(shown)
  })
})
