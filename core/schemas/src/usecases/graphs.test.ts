/**
 * Random inheritance graphs, built by random sequences of saves and added versions (fast-check), checked against a
 * naive reference resolver written here from the rules alone: plain recursion, a fresh walk per schema, its own
 * deep merge and its own version selection. After every step, accepted or refused, every stored output equals the
 * naive resolver's, and no stored schema reaches a cycle. So the linear cascade (one memo, iterative resolution,
 * batched loading) computes exactly what the rules say, and never lets a cycle in.
 */

import { admin, editor, makeEnvironment } from "@coffer/test-kit/schemas"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Platforms from "./platforms.js"
import * as Schemas from "./schemas.js"

const PLATFORMS = ["a", "b", "c", "d", "e"]
/** Versions are `N.0.0`, so the naive selection can compare majors alone. */
const INITIAL = ["1.0.0", "2.0.0"]

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The rule as written: objects merge key by key, anything else on the overriding side replaces. */
const naiveMerge = (base: JsonObject, override: JsonObject): JsonObject => {
  const result: Record<string, Json> = { ...base }
  for (const [key, value] of Object.entries(override)) {
    const previous = result[key]
    result[key] = isObject(previous) && isObject(value) ? naiveMerge(previous, value) : value
  }
  return result
}

const major = (version: string) => Number(version.split(".")[0])

/** `p`, `p/latest`, `p/N.0.0`, `p/^N.0.0`, `p/>=N.0.0` over versions `N.0.0`. */
const naiveSelect = (reference: string, versions: ReadonlyArray<string>): string | undefined => {
  const [platform, spec = "latest"] = reference.split("/") as [string, string | undefined]
  void platform
  const sorted = [...versions].sort((x, y) => major(x) - major(y))
  if (spec === "latest") return sorted.at(-1)
  if (spec.startsWith("^")) return sorted.filter((version) => major(version) === major(spec.slice(1))).at(-1)
  if (spec.startsWith(">=")) return sorted.filter((version) => major(version) >= major(spec.slice(2))).at(-1)
  return versions.includes(spec) ? spec : undefined
}

class Cycle extends Error {}

/** Resolves one stored schema from stored contents only, by plain recursion; throws `Cycle` on a cycle. */
const naiveResolve = (
  key: string,
  contents: ReadonlyMap<string, JsonObject>,
  versions: ReadonlyMap<string, ReadonlyArray<string>>,
  visiting: ReadonlySet<string> = new Set(),
): JsonObject => {
  if (visiting.has(key)) throw new Cycle(key)
  const content = contents.get(key) ?? {}
  const raw = content["@extends"]
  const references = raw === undefined ? [] : typeof raw === "string" ? [raw] : (raw as ReadonlyArray<string>)
  const { "@extends": _directive, ...own } = content
  let merged: JsonObject = {}
  for (const reference of references) {
    const platform = reference.split("/")[0]!
    const selected = naiveSelect(reference, versions.get(platform) ?? [])
    if (selected === undefined) throw new Error(`stored reference ${reference} in ${key} selects nothing`)
    merged = naiveMerge(
      merged,
      naiveResolve(`${platform}/${selected}`, contents, versions, new Set([...visiting, key])),
    )
  }
  return naiveMerge(merged, own)
}

const reference = fc
  .tuple(
    fc.constantFrom(...PLATFORMS),
    fc.constantFrom("", "/latest", "/1.0.0", "/2.0.0", "/3.0.0", "/^1.0.0", "/^2.0.0", "/>=2.0.0"),
  )
  .map(([platform, spec]) => platform + spec)

const value: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: 0, max: 3 }),
  fc.constant(null),
  fc.constant([1, 2]),
  fc.record({ x: fc.integer({ min: 0, max: 3 }), y: fc.constantFrom<Json>({ z: 1 }, 2) }, { requiredKeys: [] }),
)

const step = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      _tag: fc.constant("save" as const),
      platform: fc.constantFrom(...PLATFORMS),
      version: fc.constantFrom(...INITIAL, "3.0.0"),
      references: fc.uniqueArray(reference, { maxLength: 3 }),
      k: value,
      n: fc.record({ deep: value }, { requiredKeys: [] }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ _tag: fc.constant("add" as const), platform: fc.constantFrom(...PLATFORMS) }),
  },
)

describe("random inheritance graphs", () => {
  it("store outputs that equal a naive resolver's after every step, and never a cycle", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const env = makeEnvironment()
        try {
          await env.run(
            Effect.forEach(PLATFORMS, (name) => Platforms.putPlatform(admin, name, { name, versions: INITIAL }), {
              discard: true,
            }),
          )
          for (const next of steps) {
            const outcome: Result.Result<unknown, { readonly _tag: string }> =
              next._tag === "save"
                ? await env.run(
                    Effect.result(
                      Schemas.saveSchema(
                        editor,
                        { platform: next.platform, version: next.version },
                        next.references.length === 0
                          ? { k: next.k, n: next.n }
                          : { "@extends": next.references, k: next.k, n: next.n },
                      ),
                    ),
                  )
                : await env.run(Effect.result(Platforms.addVersion(editor, next.platform, "3.0.0")))
            if (Result.isFailure(outcome)) {
              // Refusals are the rules' own: a cycle, or a reference that selects nothing.
              expect(["CircularDependency", "Unresolved", "VersionNotFound"]).toContain(outcome.failure._tag)
            }
            const loaded = await env.run(env.store.loadPlatforms(PLATFORMS))
            const contents = new Map<string, JsonObject>()
            const versions = new Map<string, ReadonlyArray<string>>()
            for (const [name, data] of loaded) {
              versions.set(name, data.versions)
              for (const [version, content] of data.schemas) contents.set(`${name}/${version}`, content as JsonObject)
            }
            for (const key of contents.keys()) {
              const [platform, version] = key.split("/") as [string, string]
              const stored = await env.run(env.store.findSchema({ platform, version }))
              // Throws `Cycle` if a stored schema reaches one: the property fails.
              expect(stored?.output).toEqual(naiveResolve(key, contents, versions))
            }
          }
        } finally {
          await env.dispose()
        }
      }),
      { numRuns: 120 },
    )
  })
})
