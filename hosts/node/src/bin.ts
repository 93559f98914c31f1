#!/usr/bin/env node
/** Entry point of the `coffer` command. */
import { main } from "./cli.js"

await main(process.argv.slice(2))
