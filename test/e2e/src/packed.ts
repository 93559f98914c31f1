/**
 * The workspace's packages as a user gets them: every public package packed with `pnpm pack` into a tarball,
 * unpacked for inspection, and installed with npm into a fresh project of its own, with no workspace link in
 * sight. `packedInstall.node.test.ts` checks what comes out.
 *
 * npm installs with `--ignore-scripts`: the one native module, better-sqlite3, would otherwise fetch a prebuilt
 * binary from GitHub or compile for a minute, and CI reaches only the npm registry. The project pins
 * better-sqlite3 to the workspace's version and receives the binary the workspace already built, which is the
 * same file npm's install script would have produced. `--omit=optional` leaves out the platform binaries of
 * the `bun` package (about 100 MB); the test runs the workspace's Bun.
 */
import { execFile } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

export const root = resolve(import.meta.dirname, "../../..")

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly license?: string
  readonly type?: string
  readonly bin?: Readonly<Record<string, string>>
  readonly exports?: Readonly<Record<string, string | Readonly<Record<string, string>>>>
  readonly files?: ReadonlyArray<string>
  readonly dependencies?: Readonly<Record<string, string>>
  readonly devDependencies?: Readonly<Record<string, string>>
  readonly optionalDependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>
}

export interface WorkspacePackage {
  /** The package's folder, absolute. */
  readonly dir: string
  readonly manifest: Manifest
}

export const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** Every package of the workspace, found through the globs of `pnpm-workspace.yaml` (`folder/*` only). */
export const workspacePackages = (): ReadonlyArray<WorkspacePackage> => {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8")
  const globs = [...(/^packages:\n((?:[ \t]+-.*\n)+)/m.exec(yaml)?.[1] ?? "").matchAll(/-\s+["']?([^"'\s]+)\/\*/g)]
  if (globs.length === 0) throw new Error("pnpm-workspace.yaml: no `folder/*` entry under `packages:`")
  return globs.flatMap(([, folder]) =>
    readdirSync(join(root, folder!), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, folder!, entry.name, "package.json")))
      .map((entry) => join(root, folder!, entry.name))
      .map((dir) => ({ dir, manifest: readManifest(dir) })),
  )
}

/** Runs a program to completion; a non-zero exit rejects with everything it printed. */
export const exec = (
  file: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv },
): Promise<{ stdout: string; stderr: string }> =>
  new Promise((done, fail) =>
    execFile(
      file,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error === null
          ? done({ stdout, stderr })
          : fail(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`)),
    ),
  )

export interface Packed {
  readonly name: string
  /** The workspace package it was packed from. */
  readonly source: WorkspacePackage
  readonly tarball: string
  /** Where the tarball was unpacked: the `package/` folder npm would install. */
  readonly unpacked: string
  /** The manifest as packed: `workspace:` and `catalog:` replaced, `publishConfig` applied. */
  readonly manifest: Manifest
  /** Every file in the tarball, relative to `package/`. */
  readonly files: ReadonlyArray<string>
}

/** pnpm at the version the root manifest's `packageManager` names, as `.ci/run` runs it. */
const pnpm = (): [string, Array<string>] => {
  const packageManager = (readManifest(root) as Manifest & { packageManager?: string }).packageManager
  if (packageManager?.startsWith("pnpm@") !== true) throw new Error("the root package.json names no pnpm version")
  return ["npx", ["--yes", packageManager]]
}

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort()

/** Packs every public package of the workspace into `destination` with one `pnpm pack`, and unpacks each. */
export const packPublic = async (destination: string): Promise<ReadonlyArray<Packed>> => {
  const sources = workspacePackages().filter((p) => p.manifest.private !== true)
  const [command, prefix] = pnpm()
  const filters = sources.flatMap((p) => ["--filter", p.manifest.name])
  const args = [...prefix, "--recursive", ...filters, "pack", "--pack-destination", destination, "--json"]
  const { stdout } = await exec(command, args, { cwd: root })
  const reported: Array<{ name: string; filename: string }> = JSON.parse(stdout)
  return Promise.all(
    sources.map(async (source) => {
      const tarball = reported.find((entry) => entry.name === source.manifest.name)?.filename
      if (tarball === undefined) throw new Error(`pnpm pack made no tarball for ${source.manifest.name}`)
      const into = join(destination, "unpacked", source.manifest.name)
      mkdirSync(into, { recursive: true })
      await exec("tar", ["-xzf", tarball, "-C", into], { cwd: destination })
      const unpacked = join(into, "package")
      return {
        name: source.manifest.name,
        source,
        tarball,
        unpacked,
        manifest: readManifest(unpacked),
        files: filesUnder(unpacked),
      }
    }),
  )
}

/** The version of `dependency` the workspace installed for the package in `dir`. */
export const workspaceVersion = (dir: string, dependency: string): string =>
  readManifest(join(dir, "node_modules", dependency)).version

const BETTER_SQLITE3 = "better-sqlite3"
const NATIVE_BINARY = "build/Release/better_sqlite3.node"

/** The workspace's better-sqlite3, found through the package that depends on it. */
const workspaceBetterSqlite3 = (): string => {
  const owner = workspacePackages().find((p) => p.manifest.dependencies?.[BETTER_SQLITE3] !== undefined)
  if (owner === undefined) throw new Error("no workspace package depends on better-sqlite3")
  return realpathSync(join(owner.dir, "node_modules", BETTER_SQLITE3))
}

/** npm settings a user chooses for every project: where the registry is and how to reach it. */
const USER_SETTINGS = /^npm_config_(registry|cache|userconfig|cafile|proxy|https_proxy|noproxy|strict_ssl)$/i

/**
 * The environment npm installs in: the caller's, less what a package manager that started the tests left for
 * its scripts (`npm_config_local_prefix` would point npm at the workspace instead of the fresh project).
 */
const npmEnvironment = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm|pnpm)_/i.test(name) || USER_SETTINGS.test(name)),
  )

export interface Install {
  /** The packages the project depends on: a public package's name, or a third-party one with its version. */
  readonly dependencies: ReadonlyArray<string>
  /** Third-party versions, pinned wherever they occur in the tree. */
  readonly pinned?: Readonly<Record<string, string>>
}

/**
 * Makes a project in `dir` and installs it with npm. Every public package, wherever it occurs in the tree,
 * comes from its tarball (npm `overrides`), so the project names only what a user would name. When the tree
 * holds better-sqlite3, it is pinned to the workspace's version and given the workspace's binary.
 */
export const install = async (dir: string, packed: ReadonlyArray<Packed>, plan: Install): Promise<void> => {
  const tarballs = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]))
  const betterSqlite3 = workspaceBetterSqlite3()
  const pinned = { ...plan.pinned, [BETTER_SQLITE3]: readManifest(betterSqlite3).version }
  const overrides: Record<string, string> = { ...tarballs, ...pinned }
  const dependencies = Object.fromEntries(
    plan.dependencies.map((name) => {
      const spec = overrides[name]
      if (spec === undefined) throw new Error(`${name}: neither a public package nor a pinned version`)
      return [name, spec]
    }),
  )
  mkdirSync(dir, { recursive: true })
  const manifest = { name: "coffer-packed-install", private: true, type: "module", dependencies, overrides }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  const flags = ["--ignore-scripts", "--omit=optional", "--prefer-offline", "--no-audit", "--no-fund"]
  await exec("npm", ["install", ...flags, "--loglevel=error"], { cwd: dir, env: npmEnvironment() })
  const installed = join(dir, "node_modules", BETTER_SQLITE3)
  if (existsSync(installed)) {
    mkdirSync(dirname(join(installed, NATIVE_BINARY)), { recursive: true })
    copyFileSync(join(betterSqlite3, NATIVE_BINARY), join(installed, NATIVE_BINARY))
  }
}

/** The lines of the first fenced block with no language in a README: what the example prints. */
export const readmeOutput = (readme: string): ReadonlyArray<string> => {
  let block: Array<string> | undefined
  let inOtherBlock = false
  for (const line of readme.split("\n")) {
    if (block !== undefined) {
      if (line === "```") return block
      block.push(line)
    } else if (line.startsWith("```")) {
      if (line === "```" && !inOtherBlock) block = []
      else inOtherBlock = !inOtherBlock
    }
  }
  throw new Error("the README shows no output block (a fence with no language)")
}
