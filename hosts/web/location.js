// Where the built apps are: `dist/<app>/` beside this file. Plain JavaScript, so the hosts can find the files
// without this package having a build of its own for Node.
import { fileURLToPath } from "node:url"

/** The folder of a built app (`secrets`, `schemas`); it holds `index.html` and `assets/` once built. */
export const webAppDirectory = (app) => fileURLToPath(new URL(`./dist/${app}/`, import.meta.url))
