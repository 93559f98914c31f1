import { defineConfig } from "tsup"

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm"],
    // Declarations are built against the dependencies' published types, not their sources.
    dts: { entry: "src/index.ts", compilerOptions: { customConditions: [] } },
    // Two builds share dist/ and run at once: neither may empty it under the other.
    clean: false,
    sourcemap: true,
    target: "node20",
  },
  {
    // The standalone command is one tree-shaken file: loading all of `effect` through its index costs a
    // noticeable fraction of a second on every `coffer secrets run`, before the child even starts.
    entry: ["src/bin.ts"],
    format: ["esm"],
    noExternal: [/^effect/, /^@effect\//, /^@coffer\//, /^semver/],
    clean: false,
    sourcemap: false,
    target: "node20",
    platform: "node",
    banner: {
      js: 'import { createRequire as __coffer_createRequire } from "node:module"; const require = __coffer_createRequire(import.meta.url);',
    },
  },
])
