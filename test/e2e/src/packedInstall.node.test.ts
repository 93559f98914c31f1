/**
 * Packages that install from their tarballs (issue 16, item 5). Every public package is packed with `pnpm pack`
 * and checked as a tarball: ESM, type declarations, README and LICENSE, nothing of the tests, every import
 * declared, drivers as peers. Then the tarballs are installed with npm into fresh projects (no workspace link),
 * `coffer serve` and `coffer-bun serve` start from the installed packages on SQLite, each embedding example runs
 * against them and prints what its README shows, and `@coffer/cli` installs and runs alone.
 *
 * One pack and two npm installs serve every test, so the file runs in the `e2e-node` project only (`.node.`);
 * it starts the Bun host itself. It needs `pnpm build` first, like every end-to-end test.
 */
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs"
import { rm } from "node:fs/promises"
import { builtinModules } from "node:module"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bunPath, freshDirectory, type Host, type HostName, start } from "./host.js"
import {
  exec,
  install,
  type Packed,
  packPublic,
  readmeOutput,
  root,
  workspacePackages,
  workspaceVersion,
} from "./packed.js"

/** Packing, two npm installs from the registry (cold on a fresh CI machine) and the native binary's copy. */
const SETUP_TIMEOUT_MS = 300_000
const TEST_TIMEOUT_MS = 120_000

/** Clients of external systems: a library takes them as peers, so the application chooses and shares them. */
const DRIVERS = ["better-sqlite3", "ioredis", "kysely-bun-sqlite", "openid-client", "pg"]
/** Drivers only one runtime loads: an application for the other runtime need not bring them. */
const RUNTIME_ONLY: Readonly<Record<string, HostName>> = { "kysely-bun-sqlite": "bun" }

/** Files that belong to the tests, never to a tarball. */
const TEST_FILE = /(^|\/)(test|tests|__tests__|fixtures?|bench)(\/|$)|\.(test|spec|bench)\.[cm]?[jt]sx?$/
/** Packages of the tests: nothing packed may import them. */
const TEST_PACKAGES = ["vitest", "@coffer/test-kit", "@coffer/contract", "@coffer/e2e", "@effect/vitest"]

const examples = workspacePackages().filter((p) => p.dir.startsWith(join(root, "examples")))

let work: string
let packed: ReadonlyArray<Packed>
/** The project that embeds: the hosts, the examples' dependencies, with every public package from its tarball. */
let project: string
/** A project that depends on `@coffer/cli` alone. */
let cliProject: string

const byName = (name: string): Packed => {
  const found = packed.find((p) => p.name === name)
  if (found === undefined) throw new Error(`${name} was not packed`)
  return found
}

/** What an example depends on, as the project names it: public packages by name, the rest pinned. */
const exampleDependencies = () => {
  const names = new Set<string>()
  const pinned: Record<string, string> = {}
  for (const example of examples) {
    for (const [name, spec] of Object.entries(example.manifest.dependencies ?? {})) {
      names.add(name)
      if (!spec.startsWith("workspace:")) pinned[name] = workspaceVersion(example.dir, name)
    }
  }
  return { names, pinned }
}

beforeAll(async () => {
  const build = join(root, "hosts/node/dist/bin.js")
  if (!existsSync(build)) throw new Error(`${build} is missing: run \`pnpm build\` first`)
  work = mkdtempSync(join(tmpdir(), "coffer-packed-"))
  packed = await packPublic(join(work, "tarballs"))
  project = join(work, "project")
  cliProject = join(work, "cli")
  const { names, pinned } = exampleDependencies()
  await Promise.all([
    install(project, packed, { dependencies: ["@coffer/node", "@coffer/bun", ...names], pinned }),
    install(cliProject, packed, { dependencies: ["@coffer/cli"] }),
  ])
}, SETUP_TIMEOUT_MS)

/** The package a specifier names: `@scope/name` or `name`. */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/")

const isBuiltin = (specifier: string) =>
  specifier.startsWith("node:") || specifier.startsWith("bun:") || builtinModules.includes(packageOf(specifier))

/** How esbuild writes a static import or re-export, a side-effect import, and `require` in a bundled command. */
const STATIC_IMPORTS = [
  /^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"'\n]+)["']/gm,
  /^\s*import\s*["']([^"'\n]+)["']/gm,
  /\brequire\(\s*["']([^"'\n]+)["']\s*\)/g,
]
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"'\n]+)["']\s*\)/g
const PACKAGE_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/

/** In a bundled declaration file: `import … from "x"`, `export … from "x"` and `import("x")` types. */
const TYPE_IMPORT = /\b(?:from\s*|import\(\s*)["']([^"'\n]+)["']/g

type Imports = Map<string, { readonly static: boolean }>

/** The packages that `files` of a packed package import, by the patterns given, each with whether one is static. */
const scan = (p: Packed, files: RegExp, patterns: ReadonlyArray<readonly [RegExp, boolean]>): Imports => {
  const found: Imports = new Map()
  const note = (specifier: string, isStatic: boolean) => {
    if (specifier.startsWith(".") || specifier.startsWith("/") || isBuiltin(specifier)) return
    const name = packageOf(specifier)
    if (!PACKAGE_NAME.test(name)) throw new Error(`${p.name}: "${specifier}" is no module specifier`)
    found.set(name, { static: (found.get(name)?.static ?? false) || isStatic })
  }
  for (const file of p.files.filter((f) => files.test(f))) {
    const code = readFileSync(join(p.unpacked, file), "utf8")
    for (const [pattern, isStatic] of patterns) {
      for (const [, specifier] of code.matchAll(pattern)) note(specifier!, isStatic)
    }
  }
  return found
}

/** What a packed package's JavaScript imports: statically, or only with `import()` (lazily). */
const importsOf = (p: Packed): Imports =>
  scan(p, /\.[cm]?js$/, [...STATIC_IMPORTS.map((pattern) => [pattern, true] as const), [DYNAMIC_IMPORT, false]])

/** What a packed package's type declarations import: a consumer's compiler must find each. */
const typeImportsOf = (p: Packed): Imports => scan(p, /\.d\.[cm]?ts$/, [[TYPE_IMPORT, true]])

/** Everything a packed package imports, code and types. */
const allImportsOf = (p: Packed): ReadonlyArray<string> => [
  ...new Set([...importsOf(p).keys(), ...typeImportsOf(p).keys()]),
]

const dependencyFields = ["dependencies", "peerDependencies", "optionalDependencies", "devDependencies"] as const

describe("every public package, as packed", () => {
  it("is packed: exactly the workspace's public packages, and none of its private ones", () => {
    const all = workspacePackages()
    expect(packed.map((p) => p.name).sort()).toEqual(
      all
        .filter((p) => p.manifest.private !== true)
        .map((p) => p.manifest.name)
        .sort(),
    )
    // The packages of the tests and the examples stay in the repository.
    for (const name of ["@coffer/test-kit", "@coffer/contract", "@coffer/e2e"]) {
      expect(all.find((p) => p.manifest.name === name)?.manifest.private).toBe(true)
    }
    for (const example of examples) expect(example.manifest.private).toBe(true)
  })

  it("holds ESM with type declarations, its README and the LICENSE, and everything its manifest names", () => {
    const license = readFileSync(join(root, "LICENSE"), "utf8")
    for (const p of packed) {
      expect(p.files, p.name).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE"]))
      expect(readFileSync(join(p.unpacked, "LICENSE"), "utf8"), p.name).toBe(license)
      expect(p.manifest.license, p.name).toBe("MIT")
      expect(p.manifest.type, p.name).toBe("module")
      const entries = Object.values(p.manifest.exports ?? {})
      expect(entries.length, p.name).toBeGreaterThan(0)
      for (const entry of entries) {
        if (typeof entry === "string") continue
        // Only what a consumer resolves: the workspace's source condition stays in the workspace.
        expect(Object.keys(entry).sort(), p.name).toEqual(["import", "types"])
        expect(entry.import, p.name).toMatch(/\.js$/)
        expect(entry.types, p.name).toMatch(/\.d\.ts$/)
      }
      const named = [
        ...entries.flatMap((entry) => (typeof entry === "string" ? [entry] : Object.values(entry))),
        ...Object.values(p.manifest.bin ?? {}),
      ]
      for (const path of named) expect(p.files, `${p.name}: ${path}`).toContain(path.replace(/^\.\//, ""))
      for (const bin of Object.values(p.manifest.bin ?? {})) {
        expect(readFileSync(join(p.unpacked, bin), "utf8"), `${p.name}: ${bin}`).toMatch(
          /^#!\/usr\/bin\/env (node|bun)\n/,
        )
      }
    }
  })

  it("holds no test, benchmark, fixture, TypeScript source or test import", () => {
    for (const p of packed) {
      expect(
        p.files.filter((f) => TEST_FILE.test(f)),
        p.name,
      ).toEqual([])
      expect(
        p.files.filter((f) => /\.[cm]?tsx?$/.test(f) && !/\.d\.[cm]?ts$/.test(f)),
        p.name,
      ).toEqual([])
      expect(
        allImportsOf(p).filter((name) => TEST_PACKAGES.includes(name)),
        p.name,
      ).toEqual([])
    }
  })

  it("names real versions: no workspace: or catalog: range, no private package", () => {
    const privates = workspacePackages()
      .filter((p) => p.manifest.private === true)
      .map((p) => p.manifest.name)
    for (const p of packed) {
      for (const field of dependencyFields) {
        for (const [name, range] of Object.entries(p.manifest[field] ?? {})) {
          expect(range, `${p.name} ${field} ${name}`).not.toMatch(/^(workspace|catalog|link|file):/)
          if (field !== "devDependencies") expect(privates, `${p.name} ${field}`).not.toContain(name)
        }
      }
      for (const [name, range] of Object.entries(p.manifest.dependencies ?? {})) {
        // A public sibling is pinned to the version packed beside it.
        if (name.startsWith("@coffer/")) expect(range, `${p.name} → ${name}`).toBe(byName(name).manifest.version)
      }
    }
  })

  it("declares every package its code and its types import (npm's flat tree would hide the ones it forgot)", () => {
    for (const p of packed) {
      const declared = { ...p.manifest.dependencies, ...p.manifest.peerDependencies }
      const missing = allImportsOf(p).filter((name) => name !== p.name && declared[name] === undefined)
      expect(missing, p.name).toEqual([])
    }
  })

  it("takes drivers as peers in a library, optional exactly where it loads them lazily", () => {
    for (const p of packed.filter((candidate) => candidate.manifest.bin === undefined)) {
      const imports = importsOf(p)
      for (const driver of DRIVERS) {
        expect(Object.keys(p.manifest.dependencies ?? {}), p.name).not.toContain(driver)
        const use = imports.get(driver)
        if (use === undefined) continue
        expect(p.manifest.peerDependencies?.[driver], `${p.name} peer ${driver}`).toBeDefined()
        const optional = p.manifest.peerDependenciesMeta?.[driver]?.optional === true
        expect(optional, `${p.name}: ${driver} is ${use.static ? "imported" : "loaded lazily"}`).toBe(!use.static)
      }
    }
  })

  it("brings, in an application (a package with a command), every peer its packages take for its runtime", () => {
    for (const app of packed.filter((candidate) => candidate.manifest.bin !== undefined)) {
      const runtime: HostName = app.name === "@coffer/bun" ? "bun" : "node"
      const tree = new Set<string>()
      const visit = (name: string) => {
        if (tree.has(name)) return
        tree.add(name)
        for (const dependency of Object.keys(byName(name).manifest.dependencies ?? {})) {
          if (dependency.startsWith("@coffer/")) visit(dependency)
        }
      }
      visit(app.name)
      const provided = new Set([...tree].flatMap((name) => Object.keys(byName(name).manifest.dependencies ?? {})))
      const wanted = [...tree].flatMap((name) =>
        Object.keys(byName(name).manifest.peerDependencies ?? {}).filter(
          (peer) => (RUNTIME_ONLY[peer] ?? runtime) === runtime,
        ),
      )
      expect(
        wanted.filter((peer) => !provided.has(peer)),
        app.name,
      ).toEqual([])
    }
  })
})

describe("installed with npm into a fresh project", () => {
  it("is a copy of each tarball, with no link into the workspace, and `coffer` is the server's command", () => {
    for (const name of ["@coffer/node", "@coffer/bun", "@coffer/kernel", "@coffer/web"]) {
      const installed = join(project, "node_modules", name)
      expect(lstatSync(installed).isSymbolicLink(), name).toBe(false)
      expect(realpathSync(installed).startsWith(project), name).toBe(true)
      expect(JSON.parse(readFileSync(join(installed, "package.json"), "utf8"))).toEqual(byName(name).manifest)
    }
    // @coffer/node carries the user commands inside: no second package competes for `node_modules/.bin/coffer`.
    expect(existsSync(join(project, "node_modules/@coffer/cli"))).toBe(false)
    expect(realpathSync(join(project, "node_modules/.bin/coffer"))).toBe(
      realpathSync(join(project, "node_modules/@coffer/node/dist/bin.js")),
    )
  })

  const json = async (response: Response) => ({ status: response.status, body: await response.json() })
  const signIn = async (origin: string) => {
    const response = await fetch(`${origin}/api/auth/dev-login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ops@example.com" }),
    })
    expect(response.status).toBe(200)
    const cookie = response.headers.getSetCookie()[0]!.split(";")[0]!
    return (method: string, path: string, body?: unknown) =>
      fetch(`${origin}${path}`, {
        method,
        headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(json)
  }

  /** Health, a secret written and read back, a schema saved and resolved, the web app of the installed package. */
  const exercise = async (host: Host) => {
    const health = await fetch(`${host.secrets}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.text()).toBe("ok")
    const secrets = await signIn(host.secrets!)
    expect((await secrets("POST", "/api/projects", { name: "Packed" })).status).toBe(201)
    const path = "/api/projects/packed/environments/production/secrets"
    expect((await secrets("POST", path, { key: "TOKEN", value: "from-a-tarball" })).body).toMatchObject({
      action: "created",
      version: 1,
    })
    expect((await secrets("GET", `${path}/TOKEN`)).body.secret).toMatchObject({ value: "from-a-tarball" })

    const schemas = await signIn(host.schemas!)
    expect((await schemas("POST", "/api/base", { name: "base", versions: ["1.0.0"] })).status).toBe(201)
    const saved = await schemas("PUT", "/api/base/1.0.0", { content: { theme: { color: "red" } } })
    expect(saved).toMatchObject({ status: 200, body: { schema: { output: { theme: { color: "red" } } } } })

    const page = await fetch(`${host.secrets}/`)
    expect(page.headers.get("content-type")).toMatch(/^text\/html/)
    expect(await page.text()).toBe(
      readFileSync(join(project, "node_modules/@coffer/web/dist/secrets/index.html"), "utf8"),
    )
  }

  const serveInstalled = async (host: HostName, bin: string) => {
    const cwd = freshDirectory()
    const database = join(cwd, "coffer.db")
    const started = await start({
      host,
      bin,
      cwd,
      env: { COFFER_DATABASE_URL: `sqlite:${database}` },
      timeoutMs: 30_000,
    })
    try {
      await exercise(started)
    } finally {
      expect(await started.stop()).toBe(0)
    }
    expect(existsSync(database)).toBe(true)
  }

  it(
    "serves both services with `coffer serve` from the installed @coffer/node, on a SQLite file",
    () => serveInstalled("node", join(project, "node_modules/.bin/coffer")),
    TEST_TIMEOUT_MS,
  )

  it(
    "serves both services with `coffer-bun serve` from the installed @coffer/bun, on bun:sqlite",
    async () => {
      expect(bunPath, "the workspace's Bun (hosts/bun/node_modules/.bin/bun)").toBeDefined()
      await serveInstalled("bun", realpathSync(join(project, "node_modules/.bin/coffer-bun")))
    },
    TEST_TIMEOUT_MS,
  )

  /** An example's program files (its tests stay behind). */
  const exampleSources = (dir: string) =>
    ts.sys.readDirectory(join(dir, "src"), [".ts"]).filter((file) => !/\.test\.ts$/.test(file))

  /** Writes an example's sources into the project as JavaScript, type annotations removed and nothing bundled. */
  const transpileExample = (dir: string): string => {
    const into = join(project, "examples", basename(dir))
    for (const file of exampleSources(dir)) {
      const output = ts.transpileModule(readFileSync(file, "utf8"), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        fileName: file,
      }).outputText
      const target = join(into, file.slice(dir.length + 1).replace(/\.ts$/, ".js"))
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, output)
    }
    return into
  }

  it(
    "type-checks every example against the installed declarations, as a consumer's compiler resolves them",
    () => {
      const roots = examples.flatMap((example) =>
        exampleSources(example.dir).map((file) => {
          const copy = join(project, "typed", basename(example.dir), file.slice(example.dir.length + 1))
          mkdirSync(dirname(copy), { recursive: true })
          copyFileSync(file, copy)
          return copy
        }),
      )
      const program = ts.createProgram(roots, {
        strict: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        noEmit: true,
        // The packages' own declarations are checked through their use; effect's and hono's are not ours to check.
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: ["node"],
        typeRoots: [join(root, "node_modules/@types")],
      })
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`)
      expect(problems).toEqual([])
      const declarations = program
        .getSourceFiles()
        .map((file) => file.fileName)
        .filter((file) => file.includes("/@coffer/"))
      expect(declarations.length).toBeGreaterThan(0)
      for (const file of declarations) expect(file.startsWith(join(project, "node_modules/@coffer/")), file).toBe(true)
    },
    TEST_TIMEOUT_MS,
  )

  it.each(examples.map((example) => [basename(example.dir), example.dir] as const))(
    "runs the example %s against the installed packages, printing what its README shows",
    async (_name, dir) => {
      const into = transpileExample(dir)
      const { stdout } = await exec(process.execPath, [join(into, "src/main.js")], { cwd: into })
      expect(stdout.trimEnd().split("\n")).toEqual(readmeOutput(readFileSync(join(dir, "README.md"), "utf8")))
    },
    TEST_TIMEOUT_MS,
  )

  it("installs @coffer/cli alone, with no native dependency, and runs `coffer`", async () => {
    const modules = join(cliProject, "node_modules")
    expect(realpathSync(join(modules, ".bin/coffer"))).toBe(realpathSync(join(modules, "@coffer/cli/dist/bin.js")))
    for (const driver of DRIVERS) expect(existsSync(join(modules, driver)), driver).toBe(false)
    expect(existsSync(join(modules, "@coffer/node"))).toBe(false)
    const { stdout } = await exec(process.execPath, [join(modules, ".bin/coffer"), "--version"], { cwd: cliProject })
    expect(stdout.trim()).toBe(`coffer v${byName("@coffer/cli").manifest.version}`)
  })
})

// Two installed projects weigh about 200 MB in some 10,000 files.
afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true })
}, SETUP_TIMEOUT_MS)
