#!/usr/bin/env bun
/** Entry point of the `coffer-bun` command: the `coffer` command, serving on Bun.serve. */
import { main } from "@coffer/node"
import { bunListener } from "./listen.js"

await main(process.argv.slice(2), process.env, bunListener)
