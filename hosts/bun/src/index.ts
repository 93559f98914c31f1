/**
 * @coffer/bun: the Coffer host on Bun. The command, settings, adapters and shutdown are @coffer/node's; only the
 * HTTP server differs (`Bun.serve` behind the `Listener` seam), and SQLite goes through bun:sqlite because
 * `@coffer/adapter-sqlite` picks its driver by runtime.
 */
export { type BunBindings, bunListener, listen } from "./listen.js"
