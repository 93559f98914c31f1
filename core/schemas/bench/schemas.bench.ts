/**
 * Benchmarks of the two hot paths (`pnpm bench`): a token check that the cache answers (every request with a
 * token pays it), and a save whose cascade re-resolves many dependents, wide and deep, on the in-memory store.
 * They measure the core's own cost; store round trips come on top and are bounded by the batching (a few per
 * level of the dependency graph, see `usecases/view.ts`).
 */
import { Effect } from "effect"
import { bench, describe } from "vitest"
import { admin, editor, makeEnvironment } from "../src/testing.js"
import { checkToken } from "../src/tokens.js"
import * as Platforms from "../src/usecases/platforms.js"
import * as Schemas from "../src/usecases/schemas.js"
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

const cascadeGraph = (async () => {
  const env = makeEnvironment()
  await env.run(Platforms.putPlatform(admin, "base", { name: "base", versions: ["1.0.0"] }))
  await env.run(Schemas.saveSchema(editor, { platform: "base", version: "1.0.0" }, { v: 0 }))
  // 300 direct dependents, and a chain of 50 below the first of them.
  await graph(env, "wide", 300, () => "base/^1.0.0")
  await graph(env, "deep", 50, (i) => (i === 0 ? "wide0" : `deep${i - 1}/1.0.0`))
  return env
})()

describe("cascade", () => {
  let round = 0
  bench(
    "save a base schema with 350 transitive dependents",
    async () => {
      const env = await cascadeGraph
      const { reprocessed } = await env.run(
        Schemas.saveSchema(editor, { platform: "base", version: "1.0.0" }, { v: ++round }),
      )
      if (reprocessed.length !== 350) throw new Error(`expected 350 dependents, re-processed ${reprocessed.length}`)
    },
    { iterations: 20, warmupIterations: 2 },
  )
})
