import { admin, editor, makeEnvironment, tokenFor, viewer } from "@coffer/test-kit/schemas"
import { afterEach, describe, expect, it } from "vitest"
import * as Platforms from "./platforms.js"
import * as Schemas from "./schemas.js"

type Environment = ReturnType<typeof makeEnvironment>
const environments: Array<Environment> = []
const environment = () => {
  const created = makeEnvironment()
  environments.push(created)
  return created
}
afterEach(async () => {
  await Promise.all(environments.splice(0).map((env) => env.dispose()))
})

const put = (env: Environment, name: string, versions: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
  env.run(Platforms.putPlatform(admin, name, { name, versions, ...extra }))

const save = (env: Environment, platform: string, version: string, content: unknown) =>
  env.run(Schemas.saveSchema(editor, { platform, version }, content))

const auditTrail = (env: Environment) =>
  env
    .run(env.store.listAudit({ limit: 100 }))
    .then((entries) => entries.map((entry) => `${entry.actor} ${entry.action} ${entry.target}`).reverse())

describe("putPlatform", () => {
  it("creates a platform with its versions, and lists and reads it", async () => {
    const env = environment()
    await put(env, "ios", ["1.0.0", "1.0.0+build.5", "0.9.0-beta.1"], { kind: "ios", owner: "extra is fine" })
    await put(env, "android", [])
    expect(await env.run(Platforms.listPlatforms(admin))).toEqual([
      { name: "android", kind: undefined, versions: [] },
      { name: "ios", kind: "ios", versions: ["0.9.0-beta.1", "1.0.0", "1.0.0+build.5"] },
    ])
    expect(await env.run(Platforms.getPlatform(admin, "ios"))).toMatchObject({ kind: "ios" })
    expect(await env.flip(Platforms.getPlatform(admin, "web"))).toMatchObject({
      _tag: "PlatformNotFound",
      message: 'Platform "web" was not found',
    })
  })

  it("keeps the kind when an update omits it, and changes it when given", async () => {
    const env = environment()
    await put(env, "ios", [], { kind: "ios" })
    await put(env, "ios", ["1.0.0"])
    expect((await env.run(Platforms.getPlatform(admin, "ios"))).kind).toBe("ios")
    await put(env, "ios", ["1.0.0"], { kind: "custom" })
    expect((await env.run(Platforms.getPlatform(admin, "ios"))).kind).toBe("custom")
    await put(env, "ios", ["1.0.0"], { kind: "custom" })
    // Audited as the dashboard's change is, once per change: the same kind again changes nothing.
    const changes = (await env.run(env.store.listAudit({ limit: 100 }))).filter((e) => e.action === "platform.kind")
    expect(changes.map(({ target, detail }) => ({ target, detail }))).toEqual([
      { target: "ios", detail: { from: "ios", to: "custom" } },
    ])
  })

  it("rejects a bad kind, name, version or list", async () => {
    const env = environment()
    const error = (name: string, input: Platforms.PlatformInput) => env.flip(Platforms.putPlatform(admin, name, input))
    expect(await error("ios", { name: "ios", versions: [], kind: "tv" })).toMatchObject({
      _tag: "InvalidKind",
      message: 'Invalid kind "tv": expected one of ios, android, web, service, custom',
    })
    expect((await error("ios", { name: "ios", versions: [], kind: null }))._tag).toBe("InvalidKind")
    expect((await error("ios", { name: "android", versions: [] })).message).toContain("does not match")
    expect((await error("i os", { name: "i os", versions: [] }))._tag).toBe("InvalidPlatformName")
    expect((await error("schemas", { name: "schemas", versions: [] }))._tag).toBe("InvalidPlatformName")
    expect((await error("ios", { name: "ios", versions: [" 1.0.0"] }))._tag).toBe("InvalidVersion")
    expect((await error("ios", { name: "ios", versions: ["1.0"] }))._tag).toBe("InvalidVersion")
    expect((await error("ios", { name: "ios", versions: [`1.0.0-${"a".repeat(123)}`] }))._tag).toBe("InvalidVersion")
    expect((await error("ios", { name: "ios", versions: ["1.0.0", "1.0.0"] })).message).toContain("more than once")
    expect(await env.run(Platforms.listPlatforms(admin))).toEqual([])
  })

  it("deletes versions left out of the list, with their history, for admins only, and audits it", async () => {
    const env = environment()
    await put(env, "ios", ["1.0.0", "2.0.0", "3.0.0"])
    await save(env, "ios", "1.0.0", { v: 1 })
    const editorTry = await env.flip(Platforms.putPlatform(editor, "ios", { name: "ios", versions: ["2.0.0"] }))
    expect(editorTry).toMatchObject({ _tag: "Forbidden", message: "This requires the admin permission" })
    await env.run(Platforms.putPlatform(editor, "ios", { name: "ios", versions: ["1.0.0", "2.0.0", "3.0.0", "4.0.0"] }))
    await put(env, "ios", ["2.0.0", "4.0.0", "5.0.0"])
    expect((await env.run(Platforms.getPlatform(admin, "ios"))).versions).toEqual(["2.0.0", "4.0.0", "5.0.0"])
    expect(await env.run(env.store.revisions({ platform: "ios", version: "1.0.0" }))).toEqual([])
    expect(await auditTrail(env)).toEqual([
      "admin@example.com version.delete ios/1.0.0",
      "admin@example.com version.delete ios/3.0.0",
    ])
    // Re-adding starts from nothing.
    await put(env, "ios", ["1.0.0", "2.0.0", "4.0.0", "5.0.0"])
    expect(await env.flip(Schemas.readSchema(admin, { platform: "ios", version: "1.0.0" }))).toMatchObject({
      _tag: "SchemaNotFound",
    })
  })

  it("refuses to delete left-out versions a surviving schema extends, changing nothing", async () => {
    const env = environment()
    await put(env, "base", ["1.0.0", "2.0.0"])
    await put(env, "ios", ["1.0.0"])
    await save(env, "ios", "1.0.0", { "@extends": "base/^1.0.0" })
    const blocked = await env.flip(Platforms.putPlatform(admin, "base", { name: "base", versions: ["2.0.0", "3.0.0"] }))
    expect(blocked).toMatchObject({
      _tag: "DeletionBlocked",
      blockedBy: [{ platform: "ios", version: "1.0.0", extends: "base/^1.0.0" }],
    })
    expect((await env.run(Platforms.getPlatform(admin, "base"))).versions).toEqual(["1.0.0", "2.0.0"])
    expect(await auditTrail(env)).toEqual([])
    // 2.0.0 is not what the range selects: it goes.
    await put(env, "base", ["1.0.0"])
    expect((await env.run(Platforms.getPlatform(admin, "base"))).versions).toEqual(["1.0.0"])
  })

  it("re-resolves dependents whose range or latest selects an added version", async () => {
    const env = environment()
    await put(env, "base", ["1.0.0"])
    await put(env, "ios", ["1.0.0"])
    await save(env, "base", "1.0.0", { v: 1 })
    await save(env, "ios", "1.0.0", { "@extends": "base/^1.0.0", own: true })
    await put(env, "base", ["1.0.0", "1.1.0"])
    expect((await env.run(Schemas.readSchema(admin, { platform: "ios", version: "1.0.0" }))).output).toEqual({
      own: true,
    })
  })

  it("needs write permission and refuses tokens", async () => {
    const env = environment()
    expect((await env.flip(Platforms.putPlatform(viewer, "ios", { name: "ios", versions: [] })))._tag).toBe("Forbidden")
    expect(await env.flip(Platforms.putPlatform(tokenFor(null), "ios", { name: "ios", versions: [] }))).toMatchObject({
      message: "API tokens are read-only",
    })
  })
})

describe("createPlatform", () => {
  it("creates an empty platform once; a taken name is a conflict", async () => {
    const env = environment()
    expect(await env.run(Platforms.createPlatform(editor, { name: "web", kind: "web" }))).toEqual({
      name: "web",
      kind: "web",
      versions: [],
    })
    expect(await env.flip(Platforms.createPlatform(editor, { name: "web" }))).toMatchObject({
      _tag: "PlatformExists",
      message: 'Platform "web" already exists',
    })
    expect((await env.flip(Platforms.createPlatform(editor, { name: "x", kind: "tv" })))._tag).toBe("InvalidKind")
    expect((await env.flip(Platforms.createPlatform(editor, { name: "_ui" })))._tag).toBe("InvalidPlatformName")
    expect((await env.flip(Platforms.createPlatform(viewer, { name: "y" })))._tag).toBe("Forbidden")
  })
})

describe("addVersion", () => {
  it("adds a valid version to an existing platform, once", async () => {
    const env = environment()
    await put(env, "ios", [])
    expect(await env.run(Platforms.addVersion(editor, "ios", "1.0.0-rc.1+exp.sha.5114f85"))).toEqual({
      added: true,
      reprocessed: [],
    })
    expect(await env.run(Platforms.addVersion(editor, "ios", "1.0.0-rc.1+exp.sha.5114f85"))).toEqual({
      added: false,
      reprocessed: [],
    })
    expect((await env.run(Platforms.getPlatform(admin, "ios"))).versions).toEqual(["1.0.0-rc.1+exp.sha.5114f85"])
    expect((await env.flip(Platforms.addVersion(editor, "web", "1.0.0")))._tag).toBe("PlatformNotFound")
    expect((await env.flip(Platforms.addVersion(editor, "ios", "1.0.0 ")))._tag).toBe("InvalidVersion")
    expect((await env.flip(Platforms.addVersion(editor, "ios", "v1.0.0")))._tag).toBe("InvalidVersion")
    expect((await env.flip(Platforms.addVersion(tokenFor(null), "ios", "1.0.0")))._tag).toBe("Forbidden")
  })

  it("names the schemas a range or `latest` moved onto the new version, which has no schema yet", async () => {
    const env = environment()
    await put(env, "base", ["1.0.0"])
    await put(env, "app", ["1.0.0", "2.0.0", "3.0.0"])
    await save(env, "base", "1.0.0", { inherited: true })
    await save(env, "app", "1.0.0", { "@extends": "base/^1.0.0" })
    await save(env, "app", "2.0.0", { "@extends": "base" })
    await save(env, "app", "3.0.0", { "@extends": "base/1.0.0" })
    const added = await env.run(Platforms.addVersion(editor, "base", "1.1.0"))
    expect(added).toEqual({ added: true, reprocessed: ["app/1.0.0", "app/2.0.0"] })
    const output = async (version: string) =>
      (await env.run(Schemas.readSchema(admin, { platform: "app", version }))).output
    expect(await output("1.0.0")).toEqual({})
    expect(await output("3.0.0")).toEqual({ inherited: true })
    // A pre-release is not what `^1.0.0` or `latest` selects: nothing moves.
    expect(await env.run(Platforms.addVersion(editor, "base", "1.2.0-rc.1"))).toEqual({ added: true, reprocessed: [] })
  })

  it("adds a version with its schema in one step: what moves onto it inherits that schema at once", async () => {
    const env = environment()
    await put(env, "base", ["1.0.0"])
    await put(env, "app", ["1.0.0", "2.0.0"])
    await save(env, "base", "1.0.0", { inherited: true, url: "old" })
    await save(env, "app", "1.0.0", { "@extends": "base/^1.0.0", own: 1 })
    await save(env, "app", "2.0.0", { "@extends": "app/1.0.0" })
    const added = await env.run(Platforms.addVersion(editor, "base", "1.1.0", { "@extends": "base/1.0.0", url: "new" }))
    expect(added).toEqual({ added: true, reprocessed: ["app/1.0.0", "app/2.0.0"] })
    const read = (platform: string, version: string) => env.run(Schemas.readSchema(admin, { platform, version }))
    expect(await read("base", "1.1.0")).toEqual({
      content: { "@extends": "base/1.0.0", url: "new" },
      dependencies: ["base/1.0.0"],
      output: { inherited: true, url: "new" },
    })
    expect((await read("app", "1.0.0")).output).toEqual({ inherited: true, url: "new", own: 1 })
    expect((await read("app", "2.0.0")).output).toEqual({ inherited: true, url: "new", own: 1 })
    // Its first revision, saved by the person who added it.
    expect(await env.run(env.store.revisions({ platform: "base", version: "1.1.0" }))).toMatchObject([
      { revision: 1, savedBy: editor.email },
    ])
  })

  it("adds nothing when the schema sent with a version cannot be saved, or the version exists", async () => {
    const env = environment()
    await put(env, "base", ["1.0.0"])
    await put(env, "app", ["1.0.0"])
    await save(env, "base", "1.0.0", { inherited: true })
    await save(env, "app", "1.0.0", { "@extends": "base" })
    const refused = (version: string, content: unknown) =>
      env.flip(Platforms.addVersion(editor, "base", version, content)).then((error) => error._tag)
    expect(await refused("2.0.0", ["not", "an object"])).toBe("InvalidSchemaContent")
    expect(await refused("2.0.0", { "@extends": "missing/1.0.0" })).toBe("Unresolved")
    expect(await refused("2.0.0", { "@extends": "app/1.0.0" })).toBe("CircularDependency")
    expect((await env.run(Platforms.getPlatform(admin, "base"))).versions).toEqual(["1.0.0"])
    // What `latest` selects did not move, even for the moment of a refused request.
    const app = await env.run(Schemas.readSchema(admin, { platform: "app", version: "1.0.0" }))
    expect(app.output).toEqual({ inherited: true })
    expect(await env.flip(Platforms.addVersion(editor, "base", "1.0.0", { replaced: true }))).toMatchObject({
      _tag: "VersionExists",
      message: 'Version "1.0.0" of platform "base" exists already: save its schema instead',
    })
    expect((await env.run(Schemas.readSchema(admin, { platform: "base", version: "1.0.0" }))).content).toEqual({
      inherited: true,
    })
    expect((await env.flip(Platforms.addVersion(viewer, "base", "3.0.0", {})))._tag).toBe("Forbidden")
  })
})

describe("deletePlatform and deleteVersion", () => {
  it("refuses while another platform's schema extends the target, then deletes and audits", async () => {
    const env = environment()
    await put(env, "base", ["1.0.0", "2.0.0"])
    await put(env, "ios", ["1.0.0"])
    await save(env, "base", "2.0.0", { "@extends": "base/1.0.0" })
    await save(env, "ios", "1.0.0", { "@extends": ["base/1.0.0", "base"] })
    const blocked = await env.flip(Platforms.deletePlatform(admin, "base"))
    expect(blocked).toMatchObject({
      _tag: "DeletionBlocked",
      message: 'Cannot delete platform "base": 2 schemas still extend it',
      blockedBy: [
        { platform: "ios", version: "1.0.0", extends: "base" },
        { platform: "ios", version: "1.0.0", extends: "base/1.0.0" },
      ],
    })
    const version = await env.flip(Platforms.deleteVersion(admin, "base", "1.0.0"))
    expect(version).toMatchObject({
      _tag: "DeletionBlocked",
      blockedBy: [
        { platform: "base", version: "2.0.0", extends: "base/1.0.0" },
        { platform: "ios", version: "1.0.0", extends: "base/1.0.0" },
      ],
    })
    await save(env, "ios", "1.0.0", {})
    // Only base's own schema extends base/1.0.0 now: deleting the whole platform takes it along.
    await env.run(Platforms.deletePlatform(admin, "base"))
    expect((await env.flip(Platforms.getPlatform(admin, "base")))._tag).toBe("PlatformNotFound")
    expect(await env.run(env.store.revisions({ platform: "base", version: "2.0.0" }))).toEqual([])
    expect(await auditTrail(env)).toEqual(["admin@example.com platform.delete base"])
  })

  it("deletes one version and its history; 404 for what is not there; admins only", async () => {
    const env = environment()
    await put(env, "ios", ["1.0.0", "2.0.0"])
    await save(env, "ios", "2.0.0", { v: 2 })
    expect((await env.flip(Platforms.deleteVersion(editor, "ios", "2.0.0")))._tag).toBe("Forbidden")
    expect((await env.flip(Platforms.deleteVersion(tokenFor(null), "ios", "2.0.0")))._tag).toBe("Forbidden")
    await env.run(Platforms.deleteVersion(admin, "ios", "2.0.0"))
    expect((await env.run(Platforms.getPlatform(admin, "ios"))).versions).toEqual(["1.0.0"])
    expect(await env.run(env.store.revisions({ platform: "ios", version: "2.0.0" }))).toEqual([])
    expect((await env.flip(Platforms.deleteVersion(admin, "ios", "2.0.0")))._tag).toBe("VersionNotFound")
    expect((await env.flip(Platforms.deleteVersion(admin, "web", "1.0.0")))._tag).toBe("PlatformNotFound")
    expect((await env.flip(Platforms.deletePlatform(admin, "web")))._tag).toBe("PlatformNotFound")
    expect(await auditTrail(env)).toEqual(["admin@example.com version.delete ios/2.0.0"])
  })
})

describe("token scope on platforms", () => {
  it("lists only platforms in scope and answers 404 outside it", async () => {
    const env = environment()
    await put(env, "ios", ["1.0.0"])
    await put(env, "web", [])
    const scoped = tokenFor(["web"])
    expect((await env.run(Platforms.listPlatforms(scoped))).map((platform) => platform.name)).toEqual(["web"])
    expect((await env.run(Platforms.listPlatforms(tokenFor(null)))).map((platform) => platform.name)).toEqual([
      "ios",
      "web",
    ])
    expect((await env.flip(Platforms.getPlatform(scoped, "ios")))._tag).toBe("PlatformNotFound")
    expect((await env.run(Platforms.getPlatform(scoped, "web"))).name).toBe("web")
  })
})
