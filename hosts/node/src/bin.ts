#!/usr/bin/env node
/** Entry point of the `coffer` command. */
import { limitHeapGrowth } from "./heapGrowth.js"

// Before the host's modules load: loading them is what grew V8's young generation to its largest.
const heapGrowth = limitHeapGrowth(process.env)
const { main } = await import("./cli.js")
await main(process.argv.slice(2))
// `serve` returns once listening; from here the young generation may grow, up to its setting.
heapGrowth.started()
