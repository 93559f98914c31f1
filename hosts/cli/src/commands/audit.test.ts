/**
 * `coffer secrets audit`'s table says how each person acted: through which API key (its name then), with a
 * session, or, from a service that does not say, `-`.
 */
import { describe, expect, it } from "vitest"
import type { AuditEntry } from "../secretsApi.js"
import { auditTable } from "./audit.js"

const entry = (apiKey: AuditEntry["apiKey"], targetKey: string): AuditEntry => ({
  id: targetKey,
  userId: "u",
  userEmail: "ada@example.com",
  projectId: "p",
  environmentId: "e",
  action: "secret.read",
  targetKey,
  ipAddress: "192.0.2.1",
  createdAt: "2026-01-31T12:00:00.000Z",
  ...(apiKey === undefined ? {} : { apiKey }),
})

describe("auditTable", () => {
  it("names the key a person acted through in VIA, `session` without one, `-` where the service does not say", () => {
    const lines = auditTable(
      [entry({ id: "k", name: "ci deploy" }, "DB_URL"), entry(null, "API_TOKEN"), entry(undefined, "OLD")],
      new Map([["e", "production"]]),
    ).split("\n")
    expect(lines[0]).toMatch(/^TIME\s+ACTION\s+TARGET\s+ENVIRONMENT\s+BY\s+VIA\s+FROM$/)
    const via = lines[0]!.indexOf("VIA")
    const from = lines[0]!.indexOf("FROM")
    expect(lines.slice(1).map((line) => line.slice(via, from).trimEnd())).toEqual(["key ci deploy", "session", "-"])
    expect(lines[1]).toMatch(/\sDB_URL\s+production\s+ada@example\.com\s+key ci deploy\s+192\.0\.2\.1$/)
  })
})
