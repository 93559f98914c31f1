import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  // Declarations are built against the dependencies' published types, not their sources.
  dts: { entry: "src/index.ts", compilerOptions: { customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: "node20",
  // The user commands are bundled in (tsup bundles what is not a dependency; @coffer/cli is a devDependency):
  // installed as a dependency, @coffer/cli's own `coffer` would compete with this package's for
  // node_modules/.bin/coffer, and npm links whichever comes first.
  noExternal: ["@coffer/cli"],
})
