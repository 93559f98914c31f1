import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import {
  ACTIONS,
  type Action,
  can,
  KeyScope,
  MemberRole,
  mayHoldScope,
  PERMISSION_MATRIX,
  Role,
  type Standing,
} from "./permissions.js"

// Seed 001 §5, copied by hand from the seed's table rather than from the module, so that the two are
// compared and not merely the same object twice. Columns: owner, write member, read member, write key,
// read key. The write key's "yes" holds while its holder may write; the holder-role tests below cover that.
const seedMatrix: ReadonlyArray<readonly [Action, readonly [boolean, boolean, boolean, boolean, boolean]]> = [
  ["read", [true, true, true, true, true]],
  ["writeSecrets", [true, true, false, true, false]],
  ["seeMembers", [true, true, true, false, false]],
  ["managePeople", [true, false, false, false, false]],
  ["deleteProject", [true, false, false, false, false]],
  ["createProject", [true, true, true, false, false]],
  ["manageApiKeys", [true, true, true, false, false]],
]

// One actor per column; keys held by someone who may write, the case the matrix's key columns describe.
const columns: ReadonlyArray<readonly [string, Standing]> = [
  ["owner", { kind: "session", role: "owner" }],
  ["write member", { kind: "session", role: "write" }],
  ["read member", { kind: "session", role: "read" }],
  ["write key", { kind: "apiKey", scope: "write", holderRole: "write" }],
  ["read key", { kind: "apiKey", scope: "read", holderRole: "write" }],
]

describe("can", () => {
  it("covers every action of the seed, and only those", () => {
    expect(seedMatrix.map(([action]) => action)).toEqual([...ACTIONS])
    expect(Object.keys(PERMISSION_MATRIX)).toEqual([...ACTIONS])
  })

  describe.each(seedMatrix)("%s", (action, cells) => {
    it.each(columns.map(([name, actor], i) => [name, actor, cells[i]] as const))("%s → %s", (_, actor, allowed) => {
      expect(can(actor, action)).toBe(allowed)
    })
  })

  it("gives a key the same answers whichever role above read its holder has", () => {
    for (const action of ACTIONS)
      for (const scope of ["read", "write"] as const)
        expect(can({ kind: "apiKey", scope, holderRole: "owner" }, action), `${scope} key, ${action}`).toBe(
          can({ kind: "apiKey", scope, holderRole: "write" }, action),
        )
  })

  it("stops a write key from writing once its holder is moved down to read", () => {
    const key: Standing = { kind: "apiKey", scope: "write", holderRole: "read" }
    expect(can(key, "writeSecrets")).toBe(false)
    expect(can(key, "read")).toBe(true)
    expect(can({ kind: "apiKey", scope: "read", holderRole: "read" }, "read")).toBe(true)
  })

  // `readReached` (access.ts) lets the store audit a read as it finds the value, before `authorize`: sound only while
  // everyone who reaches a project may read it.
  it("lets every member and every key read, whatever the holder's role", () => {
    for (const role of ["owner", "write", "read"] as const) {
      expect(can({ kind: "session", role }, "read")).toBe(true)
      for (const scope of ["read", "write"] as const)
        expect(can({ kind: "apiKey", scope, holderRole: role }, "read")).toBe(true)
    }
  })

  it("never lets a key exceed its holder or its scope", () => {
    for (const action of ACTIONS)
      for (const holderRole of ["owner", "write", "read"] as const)
        for (const scope of ["read", "write"] as const) {
          const allowed = can({ kind: "apiKey", scope, holderRole }, action)
          if (allowed) {
            expect(can({ kind: "session", role: holderRole }, action)).toBe(true)
            expect(PERMISSION_MATRIX[action][scope === "write" ? "writeKey" : "readKey"]).toBe(true)
          }
        }
  })
})

describe("mayHoldScope", () => {
  it("lets read members hold only read keys", () => {
    expect(mayHoldScope("owner", "write")).toBe(true)
    expect(mayHoldScope("write", "write")).toBe(true)
    expect(mayHoldScope("read", "write")).toBe(false)
    for (const role of ["owner", "write", "read"] as const) expect(mayHoldScope(role, "read")).toBe(true)
  })
})

describe("role schemas", () => {
  it("accept exactly the seed's roles and scopes", () => {
    expect(Schema.is(Role)("owner")).toBe(true)
    expect(Schema.is(MemberRole)("owner")).toBe(false)
    expect(["read", "write"].every(Schema.is(MemberRole))).toBe(true)
    expect(["read", "write"].every(Schema.is(KeyScope))).toBe(true)
    expect(Schema.is(KeyScope)("admin")).toBe(false)
  })
})
