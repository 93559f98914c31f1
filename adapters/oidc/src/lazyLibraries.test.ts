/**
 * The built package in a Node process of its own, with a resolve hook that refuses openid-client and jose: importing
 * the adapter must not need them (a host without OIDC never loads them), and building a provider must.
 */
import { execFileSync } from "node:child_process"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packageDirectory = dirname(dirname(fileURLToPath(import.meta.url)))

const refuseLibraries = `data:text/javascript,${encodeURIComponent(
  `export async function resolve(specifier, context, next) {
    if (specifier === "jose" || specifier === "openid-client") throw new Error("loaded " + specifier)
    return next(specifier, context)
  }`,
)}`

const run = (script: string) =>
  execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { register } from "node:module"\nregister(${JSON.stringify(refuseLibraries)})\n${script}`,
    ],
    { cwd: packageDirectory, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  )

describe("openid-client and jose", () => {
  it("are not loaded by importing the adapter", () => {
    expect(run(`await import("./dist/index.js"); console.log("imported")`).trim()).toBe("imported")
  })

  it("are loaded when a provider is built", () => {
    const build = `const { OidcIdentity } = await import("./dist/index.js")
      const Effect = await import("effect/Effect")
      await Effect.runPromise(OidcIdentity.make({ issuer: "https://idp.example", clientId: "c", name: "n" }))`
    expect(() => run(build)).toThrow(/loaded (openid-client|jose)/)
  })
})
