/**
 * Runs the example and checks what it prints, line by line: the README shows the same output.
 */
import { expect, it } from "vitest"
import { main } from "./main.js"

it("saves schemas that extend each other, resolves one, cascades a base change and refuses a cycle", async () => {
  const lines: Array<string> = []
  await main((line) => lines.push(line))
  expect(lines).toEqual([
    "saved ios/2.0.0, extending base/^1.0.0",
    'ios/2.0.0 resolves to {"theme":{"color":"blue","size":12},"features":["login","share"]}',
    "saved base/1.1.0, re-resolved ios/2.0.0",
    'ios/2.0.0 now resolves to {"theme":{"color":"blue","size":14},"features":["login","share"]}',
    expect.stringMatching(/^refused: Circular dependency.*: base\/1\.1\.0 -> ios\/2\.0\.0 -> base\/1\.1\.0$/),
  ])
})
