/**
 * One Vite build per app: `vite build --mode <app>` builds `src/<app>/index.html` into `dist/<app>/`, which the
 * Node and Bun hosts serve on that service's port (`@coffer/web`'s `webAppDirectory`). `scripts/build.mjs` runs
 * it for every app that has an `index.html`.
 *
 * Nothing inline may come out: pages are served with `default-src 'self'` and no `'unsafe-inline'`, so the
 * module-preload polyfill (an inline script in some setups) is off and every asset is a file under `/assets/`.
 */
import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

export default defineConfig(({ mode }) => ({
  root: fileURLToPath(new URL(`./src/${mode}/`, import.meta.url)),
  base: "/",
  publicDir: false,
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL(`./dist/${mode}/`, import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
}))
