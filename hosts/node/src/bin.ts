#!/usr/bin/env node
/** Entry point of the `coffer` command. */
import { limitYoungGeneration } from "./youngGeneration.js"

// Before the host's modules load: loading them is what grew V8's young generation to its largest.
const youngGeneration = limitYoungGeneration(process.env.COFFER_YOUNG_GENERATION_MB)
const { main } = await import("./cli.js")
await main(process.argv.slice(2))
// `serve` returns once listening; from here the young generation may grow, up to the setting.
youngGeneration.started()
