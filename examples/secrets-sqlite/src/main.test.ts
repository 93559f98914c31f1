/**
 * Runs the example on a fresh SQLite file and checks what it prints (the README shows the same lines), then
 * checks that the master key is what opens the values: the same file under another key reads nothing.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, it } from "vitest"
import { main, readBack } from "./main.js"

const fresh = () => ({
  database: join(mkdtempSync(join(tmpdir(), "coffer-example-test-")), "secrets.db"),
  masterKey: randomBytes(32).toString("base64"),
})

it("creates a project, sets a secret twice, reads it back decrypted, lists versions, reopens the file", async () => {
  const lines: Array<string> = []
  await main((line) => lines.push(line), fresh())
  expect(lines).toEqual([
    "signed in as deploy@example.com",
    "created Payments API (payments-api), environments development, staging, production",
    "set STRIPE_KEY in production: created, version 1",
    "set STRIPE_KEY in production: updated, version 2",
    "STRIPE_KEY = sk_test_second_value (version 2)",
    "versions: 2 by deploy@example.com, 1 by deploy@example.com",
    "version 1 was sk_test_first_value",
    "on disk: no secret value in plaintext",
    "after reopening: STRIPE_KEY = sk_test_second_value",
  ])
})

it("cannot read the values back under another master key", async () => {
  const options = fresh()
  const signedIn = await main(() => undefined, options)
  expect(await readBack(options, signedIn)).toBe("sk_test_second_value")
  const otherKey = { ...options, masterKey: randomBytes(32).toString("base64") }
  await expect(readBack(otherKey, signedIn)).rejects.toMatchObject({ _tag: "SecretUnreadable" })
})
