import { describe, expect, it } from "vitest"
import { auditMigrations } from "./audit.js"
import { migrations } from "./index.js"
import { schemasMigrations } from "./schemas.js"
import { secretsMigrations } from "./secrets.js"
import { sessionsMigrations } from "./sessions.js"

describe("migrations", () => {
  it("has every area's migrations under a unique, well-formed name", () => {
    const areas = [sessionsMigrations, schemasMigrations, secretsMigrations, auditMigrations]
    const count = 1 + areas.reduce((sum, area) => sum + Object.keys(area).length, 0)
    expect(Object.keys(migrations)).toHaveLength(count)
    for (const name of Object.keys(migrations)) expect(name).toMatch(/^\d{4}_[a-z0-9_]+$/)
  })
})
