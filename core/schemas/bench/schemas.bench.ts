/**
 * Benchmarks of the hot paths (`pnpm bench`): a token check that the cache answers (every request with a token
 * pays it), a save whose cascade re-resolves many dependents, wide and deep, on the in-memory store, a save at the
 * tip of a chain 100 and 300 deep (each level merges its parent's whole output, so the work grows with the square
 * of the depth), and the version lists of a platform with 10,000 versions (sorting, `latest`, range selection,
 * listing), each linear apart from the sort's n log n comparisons of versions parsed once. They measure the core's
 * own cost; the same cascade over HTTP on SQLite and Postgres is `test/e2e/bench/cascade.bench.ts`.
 */

import { admin, editor, makeEnvironment } from "@coffer/test-kit/schemas"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { bench, describe } from "vitest"
import { parseReference } from "../src/domain/extendsRef.js"
import { selectVersion } from "../src/domain/select.js"
import { compareVersions, latest, sortVersions } from "../src/domain/version.js"
import * as Platforms from "../src/usecases/platforms.js"
import * as Schemas from "../src/usecases/schemas.js"
import { checkToken } from "../src/usecases/tokenChecks.js"
import * as TokenAdmin from "../src/usecases/tokens.js"

// Set up once per file, awaited by each benchmark: tinybench runs the functions, not the suite hooks.
const tokens = (async () => {
  const env = makeEnvironment()
  const { token } = await env.run(TokenAdmin.createToken(admin, { name: "bench" }))
  await env.run(checkToken(token))
  return { env, token }
})()

describe("token check", () => {
  bench("a cached, valid token", async () => {
    const { env, token } = await tokens
    await env.run(checkToken(token))
  })

  bench("an unknown token (hash, cache miss, store miss)", async () => {
    const { env } = await tokens
    await env.run(Effect.ignore(checkToken("cfs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")))
  })
})

/** `count` platforms named `prefix0…`, each one version, each extending the one given by `parent(i)`. */
const graph = async (
  env: ReturnType<typeof makeEnvironment>,
  prefix: string,
  count: number,
  parent: (i: number) => string,
) => {
  for (let i = 0; i < count; i++) {
    await env.run(Platforms.putPlatform(admin, `${prefix}${i}`, { name: `${prefix}${i}`, versions: ["1.0.0"] }))
    await env.run(
      Schemas.saveSchema(editor, { platform: `${prefix}${i}`, version: "1.0.0" }, { "@extends": parent(i), i }),
    )
  }
}

// Built on first use too (see `listed`).
let cascadeGraph: Promise<ReturnType<typeof makeEnvironment>> | undefined
const cascaded = () => {
  cascadeGraph ??= (async () => {
    const env = makeEnvironment()
    await env.run(Platforms.putPlatform(admin, "base", { name: "base", versions: ["1.0.0"] }))
    await env.run(Schemas.saveSchema(editor, { platform: "base", version: "1.0.0" }, { v: 0 }))
    // 300 direct dependents, and a chain of 50 below the first of them.
    await graph(env, "wide", 300, () => "base/^1.0.0")
    await graph(env, "deep", 50, (i) => (i === 0 ? "wide0" : `deep${i - 1}/1.0.0`))
    return env
  })()
  return cascadeGraph
}

describe("cascade", () => {
  let round = 0
  bench(
    "save a base schema with 350 transitive dependents",
    async () => {
      const env = await cascaded()
      const { reprocessed } = await env.run(
        Schemas.saveSchema(editor, { platform: "base", version: "1.0.0" }, { v: ++round }),
      )
      if (reprocessed.length !== 350) throw new Error(`expected 350 dependents, re-processed ${reprocessed.length}`)
    },
    { iterations: 20, warmupIterations: 2 },
  )
})

/**
 * A chain `levels` deep on one platform, each level adding a key of its own, so that each level's output holds one
 * key more than its parent's: resolving the tip merges every level, each copying its parent's output.
 */
const chains = new Map<number, Promise<ReturnType<typeof makeEnvironment>>>()
const chain = (levels: number) => {
  let built = chains.get(levels)
  if (built === undefined) {
    built = (async () => {
      const env = makeEnvironment()
      const versions = Array.from({ length: levels + 1 }, (_, i) => `1.0.${i}`)
      await env.run(Platforms.putPlatform(admin, "chain", { name: "chain", versions }))
      for (let i = 0; i <= levels; i++) {
        const content = i === 0 ? { k0: 0 } : { "@extends": `chain/1.0.${i - 1}`, [`k${i}`]: i }
        await env.run(Schemas.saveSchema(editor, { platform: "chain", version: `1.0.${i}` }, content))
      }
      return env
    })()
    chains.set(levels, built)
  }
  return built
}

describe("a save at the tip of a chain", () => {
  for (const levels of [100, 300]) {
    let round = 0
    bench(
      `${levels} deep, each level adding a key${levels === 100 ? " (the reference for the next)" : ""}`,
      async () => {
        const env = await chain(levels)
        const tip = { platform: "chain", version: `1.0.${levels}` }
        const content = { "@extends": `chain/1.0.${levels - 1}`, tip: ++round }
        const { schema } = await env.run(Schemas.saveSchema(editor, tip, content))
        if (Object.keys(schema.output).length !== levels + 1) throw new Error("the chain did not resolve whole")
      },
      { iterations: 10, warmupIterations: 2 },
    )
  }
})

// 10,000 versions in a scrambled order: majors, minors, some pre-releases and build metadata.
const manyVersions = Array.from({ length: 10_000 }, (_, i) => {
  const core = `${(i * 7919) % 100}.${(i * 104729) % 100}.0`
  return i % 10 === 0 ? `${core}-rc.${i % 7}` : i % 10 === 1 ? `${core}+b${i}` : core
})
const distinctVersions = [...new Set(manyVersions)]

// Built on first use, not at import: set up while the token benchmarks run, it would be measured with them.
let listing: Promise<ReturnType<typeof makeEnvironment>> | undefined
const listed = () => {
  listing ??= (async () => {
    const env = makeEnvironment()
    await env.run(Platforms.putPlatform(admin, "many", { name: "many", versions: distinctVersions }))
    return env
  })()
  return listing
}

describe("version lists at 10,000 versions", () => {
  bench("sortVersions (each version parsed once)", () => {
    sortVersions(distinctVersions)
  })
  bench("reference: sort with compareVersions (parses per comparison)", () => {
    ;[...distinctVersions].sort(compareVersions)
  })
  bench("latest", () => {
    latest(distinctVersions)
  })
  const range = Result.getOrThrow(parseReference("many/^42.0.0"))
  bench("range selection (^42.0.0)", () => {
    selectVersion(range, distinctVersions)
  })
  bench(
    "listPlatforms with a 10,000-version platform (the store sorts)",
    async () => {
      const env = await listed()
      await env.run(Platforms.listPlatforms(admin))
    },
    { iterations: 20 },
  )
})
