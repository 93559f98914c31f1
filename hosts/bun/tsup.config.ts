import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  // Declarations are built against the dependencies' published types, not their sources.
  dts: { entry: "src/index.ts", compilerOptions: { customConditions: [] } },
  clean: true,
  sourcemap: true,
  // esbuild has no Bun target; Bun runs current JavaScript, and `node` keeps `node:*` imports external.
  target: "esnext",
  platform: "node",
  // Bun's own modules exist only at run time under Bun.
  external: [/^bun:/],
})
