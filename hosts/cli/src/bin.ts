#!/usr/bin/env node
/** Entry point of the `coffer` command when `@coffer/cli` is installed alone. */
import { runCli } from "./main.js"

process.exitCode = await runCli(process.argv.slice(2))
