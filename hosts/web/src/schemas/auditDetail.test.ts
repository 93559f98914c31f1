/** The audit log's details read out, from the fields the service records (core/schemas `usecases/`). */
import { describe, expect, it } from "vitest"
import type { AuditEntry } from "../api/schemas.js"
import { auditDetail } from "./auditDetail.js"

describe("auditDetail", () => {
  it.each<[AuditEntry["action"], AuditEntry["detail"], string]>([
    [
      "platform.delete",
      { versions: ["1.0.0", "1.1.0", "2.0.0"], kind: "web" },
      "3 versions: 1.0.0, 1.1.0, 2.0.0; kind web",
    ],
    ["platform.delete", { versions: ["1.0.0"] }, "1 version: 1.0.0"],
    ["platform.delete", { versions: [], kind: "web" }, "no versions; kind web"],
    ["platform.delete", { versions: ["1.0.0"], tokens: ["t1"] }, "1 version: 1.0.0; taken out of a token’s platforms"],
    ["platform.delete", { versions: [], tokens: ["t1", "t2"] }, "no versions; taken out of 2 tokens’ platforms"],
    ["platform.kind", { from: "ios", to: "web" }, "from ios to web"],
    // A platform recorded without a kind reads as custom, as the list shows it.
    ["platform.kind", { from: null, to: "service" }, "from custom to service"],
    ["version.delete", { omittedFrom: "versions list" }, "left out of the versions list"],
    ["version.delete", undefined, ""],
    ["token.create", { name: "ci", platforms: null }, "for all platforms"],
    ["token.create", { name: "ci", platforms: ["web"] }, "for 1 platform: web"],
    ["token.create", { name: "ci", platforms: ["web", "ios"] }, "for 2 platforms: web, ios"],
    // The token's name is the entry's target already.
    ["token.revoke", { name: "ci" }, ""],
  ])("%s %j", (action, detail, shown) => {
    expect(auditDetail({ action, detail })).toBe(shown)
  })

  it("shows a detail no form reads as recorded", () => {
    expect(auditDetail({ action: "version.delete", detail: { omittedFrom: "import" } })).toBe("omittedFrom: import")
    const future = { action: "platform.rename", detail: { from: "a", to: "b", at: 3 } } as unknown as AuditEntry
    expect(auditDetail(future)).toBe("from: a; to: b; at: 3")
  })
})
