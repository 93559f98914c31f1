import { defineConfig } from "tsup"

export default defineConfig({
  // `jsonHazards` on its own, importing nothing, for the dashboard's editor (`@coffer/http/jsonHazards`).
  entry: { index: "src/index.ts", jsonHazards: "src/request/jsonHazards.ts" },
  format: ["esm"],
  // Declarations are built against the dependencies' published types, not their sources.
  dts: { compilerOptions: { customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: "node20",
})
