// Builds every app under src/ that has an index.html (src/secrets, src/schemas, …) into dist/<app>/, then
// checks the first-load budget: the JavaScript an app's index.html loads, gzipped, at most 100 KB.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "vite"

const root = fileURLToPath(new URL("..", import.meta.url))
export const FIRST_LOAD_BUDGET_BYTES = 100 * 1024

const apps = readdirSync(join(root, "src")).filter((name) => existsSync(join(root, "src", name, "index.html")))

/** The gzipped bytes of every script the built index.html loads (entry and module preloads). */
export const firstLoadBytes = (distDirectory) => {
  const html = readFileSync(join(distDirectory, "index.html"), "utf8")
  const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1])
  return scripts.reduce((sum, path) => sum + gzipSync(readFileSync(join(distDirectory, path))).length, 0)
}

for (const app of apps) {
  await build({ configFile: join(root, "vite.config.ts"), mode: app })
  const bytes = firstLoadBytes(join(root, "dist", app))
  const line = `@coffer/web ${app}: first load ${(bytes / 1024).toFixed(1)} KB of JavaScript gzipped`
  if (bytes > FIRST_LOAD_BUDGET_BYTES) {
    console.error(`${line}, over the budget of ${FIRST_LOAD_BUDGET_BYTES / 1024} KB`)
    process.exit(1)
  }
  console.log(line)
}
