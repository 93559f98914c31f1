import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  // Declarations are built against the dependencies' published types, not their sources.
  dts: { entry: "src/index.ts", compilerOptions: { customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: "node20",
})
