/**
 * The OpenAPI documents of both services (`./document.ts`): every route of each Hono app is a documented operation
 * and every documented operation is a route; every reference resolves; and every endpoint, exercised in process
 * through the test kit, answers what its document says (the kit's clients check each answer against the served
 * document, decoding the body with Effect Schemas read back from its JSON Schemas, unknown fields refused).
 */

import type { Conformance } from "@coffer/test-kit/openapi"
import { createPlatforms, saveSchema, useSchemasServices } from "@coffer/test-kit/schemasService"
import { makeService, populate } from "@coffer/test-kit/secretsService"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { Hono } from "hono"
import { describe, expect, it } from "vitest"
import { isDocumented } from "./documented.js"
import { openApiPath } from "./endpoint.js"
import { endpointsOf } from "./route.js"

const service = useSchemasServices()

/** Production, with the settings that mount optional routes (`/metrics`). */
const PRODUCTION = {
  COFFER_ENV: "production",
  COFFER_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
  COFFER_METRICS_TOKEN: "a-metrics-token-of-some-length",
}

/** `METHOD /path` of every route the app would run, in OpenAPI's path form. */
const routesOf = (app: Hono) =>
  new Set(
    app.routes
      .filter((route) => route.method !== "ALL" && route.path !== "*" && route.path !== "/*")
      .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z]+)/g, "{$1}")}`),
  )

const operationsOf = async (documented: Conformance) => {
  const document = await documented.document()
  return new Set(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    ),
  )
}

/**
 * The document's operations as routes: a `HEAD` operation (a refusal, `Endpoint.refusesHead`) is no route of its
 * own but its path's `GET`, which must be there.
 */
const documentedRoutes = async (documented: Conformance) => {
  const operations = await operationsOf(documented)
  for (const operation of operations) {
    if (operation.startsWith("HEAD ")) expect(operations, operation).toContain(operation.replace(/^HEAD/, "GET"))
  }
  return new Set([...operations].filter((operation) => !operation.startsWith("HEAD ")))
}

/** Every `$ref` in the document names a component schema it has. */
const expectReferencesResolve = async (documented: Conformance) => {
  const document = await documented.document()
  const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? []
  expect(refs.length).toBeGreaterThan(0)
  for (const ref of refs) {
    const name = ref.slice('"$ref":"#/components/schemas/'.length, -1)
    expect(document.components.schemas, ref).toHaveProperty([name])
  }
}

/** Every operation was answered at least once, with a success unless listed in `errorsOnly`. */
const expectCovered = async (documented: Conformance, errorsOnly: ReadonlyArray<string>) => {
  const seen = [...documented.seen]
  for (const operation of await operationsOf(documented)) {
    const answers = seen.filter((key) => key.startsWith(`${operation} `))
    expect(answers, `${operation} was never exercised`).not.toEqual([])
    if (!errorsOnly.includes(operation)) {
      expect(
        answers.some((key) => /\s[23]\d\d$/.test(key)),
        `${operation} never succeeded`,
      ).toBe(true)
    }
  }
}

type JsonSchemaNode = Readonly<Record<string, unknown>>

/**
 * What a compiler left in the document that no request or answer can be: the strings `"Infinity"`, `"-Infinity"`
 * and `"NaN"` (a `Schema.Number`'s JSON form of non-finite numbers, which a JSON body never decodes to), a number
 * with a string beside it, and one alternative twice. Each as `<where>: <what>`.
 */
const artefactsOf = (document: unknown): ReadonlyArray<string> => {
  const found: Array<string> = []
  const typesOf = (node: unknown): ReadonlyArray<unknown> => {
    const type = (node as JsonSchemaNode | undefined)?.type
    return Array.isArray(type) ? type : [type]
  }
  const visit = (node: unknown, where: string) => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, `${where}[${index}]`)
      return
    }
    if (typeof node !== "object" || node === null) return
    const schema = node as JsonSchemaNode
    for (const word of ["enum", "const"] as const) {
      const values = word === "enum" ? schema.enum : [schema.const]
      if (!Array.isArray(values)) continue
      const nonFinite = values.filter((value) => value === "Infinity" || value === "-Infinity" || value === "NaN")
      if (nonFinite.length > 0) found.push(`${where}: ${word} ${JSON.stringify(nonFinite)}`)
    }
    const numeric = typesOf(schema).some((type) => type === "number" || type === "integer")
    if (numeric && typesOf(schema).includes("string")) found.push(`${where}: a number or a string`)
    for (const word of ["anyOf", "oneOf"] as const) {
      const alternatives = schema[word]
      if (!Array.isArray(alternatives)) continue
      const types = alternatives.flatMap(typesOf)
      if (types.some((type) => type === "number" || type === "integer") && types.includes("string")) {
        found.push(`${where}: ${word} of a number and a string`)
      }
      const texts = alternatives.map((alternative) => JSON.stringify(alternative))
      if (new Set(texts).size !== texts.length) found.push(`${where}: ${word} with an alternative twice`)
    }
    for (const [key, value] of Object.entries(schema)) visit(value, `${where}/${key}`)
  }
  visit(document, "#")
  return found
}

/** Whether the JSON Schema `node` (a `$ref` resolved in `components`) takes `null`. */
const admitsNull = (node: JsonSchemaNode, components: Readonly<Record<string, JsonSchemaNode>>): boolean => {
  if (typeof node.$ref === "string") return admitsNull(components[node.$ref.split("/").pop()!]!, components)
  if (Array.isArray(node.anyOf)) return node.anyOf.some((alternative) => admitsNull(alternative, components))
  if (Array.isArray(node.type)) return node.type.includes("null")
  if (node.type === undefined && node.enum === undefined && node.const === undefined) return true
  return node.type === "null" || (Array.isArray(node.enum) && node.enum.includes(null)) || node.const === null
}

/**
 * Every request-body field the document says takes `null` is one the route's decoder takes `null` for, and the
 * other way round (an optional field is left out, never sent as `null`, unless its Schema says `null`). A field
 * whose rule the use case checks (`documented`) is held to its document by the kit instead, on every body taken.
 */
const nullsOf = async (app: Hono, documented: Conformance): Promise<ReadonlyArray<string>> => {
  const document = (await documented.document()) as unknown as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchemaNode }> } }>>
    components: { schemas: Record<string, JsonSchemaNode> }
  }
  const components = document.components.schemas
  const wrong: Array<string> = []
  for (const endpoint of endpointsOf(app)) {
    const body = endpoint.body as unknown as { readonly fields?: Schema.Struct.Fields } | undefined
    if (body?.fields === undefined) continue
    const operation = document.paths[openApiPath(endpoint.path)]![endpoint.method.toLowerCase()]!
    let described = operation.requestBody!.content["application/json"]!.schema
    if (typeof described.$ref === "string") described = components[described.$ref.split("/").pop()!]!
    const properties = described.properties as Record<string, JsonSchemaNode>
    for (const [name, field] of Object.entries(body.fields)) {
      if (isDocumented(field)) continue
      const alone = Schema.Struct({ [name]: field }) as unknown as Schema.Decoder<unknown>
      const decoded = Exit.isSuccess(Schema.decodeUnknownExit(alone)({ [name]: null }))
      if (admitsNull(properties[name]!, components) !== decoded) {
        wrong.push(
          `${endpoint.method} ${endpoint.path} ${name}: null is ${decoded ? "taken" : "refused"}, not as documented`,
        )
      }
    }
  }
  return wrong
}

/** The secrets routes that refuse `HEAD` (they answer a secret value; every read is audited). */
const HEAD_REFUSALS = [
  "HEAD /api/projects/{slug}/environments/{env}/secrets/{key}",
  "HEAD /api/projects/{slug}/environments/{env}/secrets/{key}/versions/{n}",
  "HEAD /api/projects/{slug}/environments/{env}/secrets/.env",
  "HEAD /api/projects/{slug}/environments/{env}/secrets/json",
]

/** Without an identity provider in process the OIDC routes can only refuse (404: sign-in off). */
const OIDC = ["GET /api/auth/oidc/start", "GET /api/auth/oauth2/callback/oidc", "POST /api/auth/backchannel-logout"]

describe("the schemas service's OpenAPI document", () => {
  it("documents every route of the app, and nothing that is not a route", async () => {
    for (const env of [{}, PRODUCTION]) {
      const { app, documented } = service(env)
      expect(await documentedRoutes(documented)).toEqual(routesOf(app))
      expect((await operationsOf(documented)).has("GET /metrics")).toBe(env === PRODUCTION)
      await expectReferencesResolve(documented)
    }
  })

  it("describes exactly what the API takes: no non-finite numbers, no string for a number, null only if taken", async () => {
    for (const env of [{}, PRODUCTION]) {
      const { app, documented } = service(env)
      expect([...artefactsOf(await documented.document()), ...(await nullsOf(app, documented))]).toEqual([])
    }
  })

  it("describes security, errors and limits", async () => {
    const { documented } = service()
    const document = (await documented.document()) as unknown as {
      info: { description: string }
      components: { securitySchemes: Record<string, unknown> }
      paths: Record<string, Record<string, { security: unknown; responses: Record<string, unknown> }>>
    }
    expect(document.components.securitySchemes).toMatchObject({
      session: { type: "apiKey", in: "cookie", name: "coffer_schemas_session" },
      bearer: { type: "http", scheme: "bearer" },
    })
    expect(document.info.description).toMatch(/1 MiB/)
    const read = document.paths["/api/{platform}/{version}"]!.get!
    expect(read.security).toEqual([{ session: [] }, { bearer: [] }])
    // Tokens are read-only: the writes a token is refused on (403) declare the session alone.
    for (const [path, method] of [
      ["/api/{platform}/{version}", "put"],
      ["/api/{platform}", "post"],
      ["/api/{platform}/versions", "post"],
    ] as const) {
      expect(document.paths[path]![method]!.security, `${method} ${path}`).toEqual([{ session: [] }])
      expect(Object.keys(document.paths[path]![method]!.responses)).toContain("403")
    }
    expect(Object.keys(read.responses)).toEqual(expect.arrayContaining(["200", "304", "401", "403", "404", "503"]))
    const remove = document.paths["/api/_ui/v1/platforms/{platform}"]!.delete!
    expect(remove.security).toEqual([{ session: [] }])
    expect(JSON.stringify(remove.responses["409"])).toContain("DeletionBlocked")
    expect(document.paths["/openapi.json"]!.get!.security).toEqual([])
    const restore = document.paths["/api/_ui/v1/platforms/{platform}/versions/{version}/revisions/{revision}/restore"]!
    expect(restore.post!.security).toEqual([{ session: [] }])
    expect(JSON.stringify(restore.post!.responses["409"])).toContain("SchemaSavedMeanwhile")
    // Refusals any request may meet: a query value holding a NUL (400), on reads that take no parameters too; a
    // write carrying the session cookie from a foreign origin (403), sign-in and sign-out included, but the
    // cookieless back-channel logout.
    expect(Object.keys(document.paths["/api/schemas"]!.get!.responses)).toContain("400")
    for (const path of ["/api/auth/dev-login", "/api/auth/logout"]) {
      expect(Object.keys(document.paths[path]!.post!.responses)).toContain("403")
    }
    expect(Object.keys(document.paths["/api/auth/backchannel-logout"]!.post!.responses)).not.toContain("403")
    expect((document as unknown as { servers: unknown }).servers).toEqual([{ url: "/", description: "This instance" }])
    // Rules the use cases check, stated in the document (the kit holds every body taken to them).
    const bodyOf = (path: string, method: string) =>
      (document.paths[path]![method] as unknown as { requestBody: { content: Record<string, { schema: unknown }> } })
        .requestBody.content["application/json"]!.schema as { properties: Record<string, unknown> }
    const platform = bodyOf("/api/_ui/v1/platforms", "post").properties
    expect(platform.name).toMatchObject({ maxLength: 64, pattern: "^(?!(?:schemas|auth)$)[A-Za-z0-9][A-Za-z0-9._-]*$" })
    expect(platform.kind).toMatchObject({ enum: ["ios", "android", "web", "service", "custom"] })
    expect(bodyOf("/api/{platform}/{version}", "put").properties.content).toMatchObject({ type: "object" })
    expect(bodyOf("/api/{platform}/versions", "post").properties.version).toMatchObject({ maxLength: 128 })
    // The counts and lengths the use cases enforce, as they enforce them: a platform's versions, a token's name.
    expect(bodyOf("/api/{platform}", "post").properties.versions).toMatchObject({ type: "array", maxItems: 10_000 })
    expect(document.paths["/api/{platform}/versions"]!.post).toMatchObject({
      description: expect.stringContaining("at most 10,000 versions"),
    })
    expect(bodyOf("/api/_ui/v1/tokens", "post").properties.name).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 100,
    })
    // A whole-number path parameter says so; the back-channel logout's form says its field.
    const revision = (
      restore.post as unknown as { parameters: Array<{ name: string; schema: unknown }> }
    ).parameters.find((parameter) => parameter.name === "revision")
    expect(revision?.schema).toEqual({ type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
    const logout = document.paths["/api/auth/backchannel-logout"]!.post as unknown as {
      requestBody: { content: Record<string, { schema: unknown }> }
    }
    expect(logout.requestBody.content["application/x-www-form-urlencoded"]?.schema).toMatchObject({
      properties: { logout_token: { type: "string" } },
      required: ["logout_token"],
    })
  })

  it("answers every endpoint as documented", async () => {
    const { person, withToken, anonymous, documented } = service()
    const admin = await person("root@example.com")
    await createPlatforms(admin, { base: ["1.0.0"], app: ["1.0.0"] })
    await admin.request("POST", "/api/base/versions", { body: { version: "1.1.0+build.7" } })
    await admin.request("GET", "/api/base/versions")
    await saveSchema(admin, "base/1.0.0", { a: 1, nested: { b: [1, 2] } })
    await saveSchema(admin, "app/1.0.0", { "@extends": "base/^1.0.0", c: true })
    const { client: token, id } = await withToken(admin)
    const read = await token.request("GET", "/api/app/1.0.0")
    await token.request("GET", "/api/app/1.0.0", { headers: { "if-none-match": read.headers.get("etag")! } })
    await token.request("GET", "/api/schemas")
    await token.request("GET", "/api/app")
    await admin.request("GET", "/api/_ui/v1/instance")
    await admin.request("GET", "/api/auth/get-session")
    await admin.request("GET", "/api/_ui/v1/platforms")
    await admin.request("POST", "/api/_ui/v1/platforms", { body: { name: "tv", kind: "web" } })
    await admin.request("PATCH", "/api/_ui/v1/platforms/tv", { body: { kind: "service" } })
    await admin.request("GET", "/api/_ui/v1/platforms/app")
    await admin.request("GET", "/api/_ui/v1/platforms/tv")
    await admin.request("GET", "/api/_ui/v1/platforms/nope")
    const version = "/api/_ui/v1/platforms/base/versions/1.0.0"
    await admin.request("GET", version)
    const overtaken = { content: { a: 2 }, expectedRevision: 0 }
    expect((await admin.request("PUT", "/api/base/1.0.0", { body: overtaken })).status).toBe(409)
    await admin.request("GET", `${version}/revisions`)
    await admin.request("GET", `${version}/revisions/1`)
    expect((await admin.request("POST", `${version}/revisions/1/restore`)).status).toBe(200)
    const staleRestore = { body: { expectedRevision: 1 } }
    expect((await admin.request("POST", `${version}/revisions/1/restore`, staleRestore)).status).toBe(409)
    await admin.request("GET", `${version}/ancestors`)
    await admin.request("GET", `${version}/dependents`)
    await admin.request("GET", "/api/_ui/v1/tokens")
    await admin.request("DELETE", `/api/_ui/v1/tokens/${id}`)
    expect((await admin.request("DELETE", "/api/_ui/v1/platforms/base")).status).toBe(409)
    expect((await admin.request("DELETE", "/api/_ui/v1/platforms/app/versions/1.0.0")).status).toBe(200)
    await admin.request("DELETE", "/api/_ui/v1/platforms/tv")
    await admin.request("GET", "/api/_ui/v1/audit")
    await admin.request("POST", "/api/auth/dev-login", { body: { email: "again@example.com", groups: ["a"] } })
    await admin.request("POST", "/api/auth/logout")
    for (const path of ["/openapi.json", "/docs", "/docs/docs.js", "/docs/docs.css", "/healthz", "/readyz"])
      await anonymous.request("GET", path)
    for (const path of OIDC) {
      const [method, url] = path.split(" ") as [string, string]
      expect((await anonymous.request(method, url)).status).toBe(404)
    }
    await expectCovered(documented, OIDC)
  })
})

describe("the secrets service's OpenAPI document", () => {
  it("describes exactly what the API takes: no non-finite numbers, no string for a number, null only if taken", async () => {
    for (const env of [{}, PRODUCTION]) {
      const { app, documented, runtime } = makeService(env)
      expect([...artefactsOf(await documented.document()), ...(await nullsOf(app, documented))]).toEqual([])
      // The rule seed 001 §8 gives, and nothing else, where a key is created and where it is rotated.
      const document = (await documented.document()) as unknown as {
        paths: Record<
          string,
          {
            post: {
              requestBody: { content: Record<string, { schema: JsonSchemaNode }> }
              responses: Record<string, unknown>
            }
          }
        >
      }
      const bodyOf = (path: string) =>
        document.paths[path]!.post.requestBody.content["application/json"]!.schema.properties as Record<string, unknown>
      for (const path of ["/api/api-keys", "/api/api-keys/{id}/rotate"]) {
        expect(bodyOf(path).expiresInDays).toEqual({
          type: "integer",
          minimum: 1,
          maximum: 3650,
          description: "A whole number of days from 1 to 3650",
        })
      }
      // Names the use cases check, stated as the rules they apply (the kit holds every body taken to them).
      expect(bodyOf("/api/projects/{slug}/environments").name).toMatchObject({
        type: "string",
        minLength: 1,
        maxLength: 64,
        pattern: "^(?!\\.\\.?$)[A-Za-z0-9_.-]+$",
      })
      expect(bodyOf("/api/projects/{slug}/environments/{env}/secrets").key).toMatchObject({ maxLength: 256 })
      // Labels (trimmed, then 1 to their length): what each use case refuses beyond it.
      for (const [path, field, maxLength] of [
        ["/api/projects", "name", 100],
        ["/api/api-keys", "name", 100],
        ["/api/cli-logins", "name", 64],
      ] as const) {
        expect(bodyOf(path)[field], `${path} ${field}`).toMatchObject({ type: "string", minLength: 1, maxLength })
      }
      // A secret write's check-and-set: any version a JSON number carries exactly, 0 for "not there yet".
      const secrets = "/api/projects/{slug}/environments/{env}/secrets"
      expect(bodyOf(secrets).expectedVersion).toMatchObject({
        type: "integer",
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
      })
      expect(JSON.stringify(document.paths[secrets]!.post.responses["409"])).toContain("SecretWriteConflict")
      await runtime.dispose()
    }
  })

  it("documents HEAD: answered by every GET, refused (405) by the reads of secret values alone", async () => {
    const { documented, runtime } = makeService({})
    const document = (await documented.document()) as unknown as {
      info: { description: string }
      paths: Record<string, Record<string, { security: unknown; responses: Record<string, { headers?: object }> }>>
    }
    expect(document.info.description).toMatch(/Every `GET` also answers `HEAD`.*except the reads of secret values/)
    const heads = Object.entries(document.paths)
      .filter(([, item]) => item.head !== undefined)
      .map(([path]) => `HEAD ${path}`)
    expect(heads.sort()).toEqual([...HEAD_REFUSALS].sort())
    for (const operation of HEAD_REFUSALS) {
      const path = operation.slice("HEAD ".length)
      const head = document.paths[path]!.head!
      // Refused before any credential is read.
      expect(head.security, operation).toEqual([])
      expect(Object.keys(head.responses), operation).toEqual(["400", "405", "500"])
      expect(head.responses["405"]!.headers, operation).toHaveProperty("Allow")
      // The `GET` itself never answers 405.
      expect(Object.keys(document.paths[path]!.get!.responses), operation).not.toContain("405")
    }
    await runtime.dispose()
    // Schemas refuses no HEAD: its document says HEAD is answered everywhere, and has no HEAD operation.
    const schemas = (await service().documented.document()) as unknown as typeof document
    expect(schemas.info.description).toMatch(
      /Every `GET` also answers `HEAD`: the same status and headers, without the body\.\n/,
    )
    expect(schemas.info.description).toMatch(/`OPTIONS` on a path a route takes answers 204 with `Allow`/)
    expect(Object.values(schemas.paths).some((item) => item.head !== undefined)).toBe(false)
  })

  it("describes every moment an answer gives as an ISO 8601 date-time", async () => {
    const { documented, runtime } = makeService({})
    const document = await documented.document()
    // Every property named like a moment (`createdAt`, `expiresAt`, `lastUsedAt`…), wherever it is described.
    const untyped: Array<string> = []
    const visit = (node: unknown, where: string) => {
      if (Array.isArray(node)) {
        for (const [index, item] of node.entries()) visit(item, `${where}[${index}]`)
        return
      }
      if (typeof node !== "object" || node === null) return
      const properties = (node as JsonSchemaNode).properties as Record<string, JsonSchemaNode> | undefined
      for (const [name, property] of Object.entries(properties ?? {})) {
        if (!/At$/.test(name)) continue
        const alternatives = (property.anyOf as Array<JsonSchemaNode> | undefined) ?? [property]
        const strings = alternatives.filter((alternative) => alternative.type === "string")
        if (!strings.every((alternative) => alternative.format === "date-time")) untyped.push(`${where}/${name}`)
      }
      for (const [key, value] of Object.entries(node)) visit(value, `${where}/${key}`)
    }
    visit(document, "#")
    expect(untyped).toEqual([])
    await runtime.dispose()
  })

  it("declares the expiry header an API key's answers carry, on the operations a key is taken on", async () => {
    const { documented, runtime } = makeService({})
    const document = (await documented.document()) as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>
    }
    const header = (path: string, method: string, status: string) =>
      document.paths[path]![method]!.responses[status]!.headers?.["Coffer-Api-Key-Expires"]
    expect(header("/api/projects", "get", "200")).toMatchObject({ schema: { type: "string" } })
    expect(header("/api/projects/{slug}/environments/{env}/secrets", "get", "404")).toBeDefined()
    // Not where no key is taken: creating a project is for sessions alone.
    expect(header("/api/projects", "post", "201")).toBeUndefined()
    await runtime.dispose()
  })

  it("documents which version each restore brought back, in the history's items and the restore itself", async () => {
    const { documented, runtime } = makeService({})
    const document = (await documented.document()) as unknown as {
      components: { schemas: Record<string, JsonSchemaNode> }
      paths: Record<string, Record<string, { description?: string }>>
    }
    const item = document.components.schemas.SecretVersionListItem!
    expect(item.required).toContain("restoredFrom")
    expect(JSON.stringify((item.properties as Record<string, unknown>).restoredFrom)).toMatch(/restore.*null/)
    const history = "/api/projects/{slug}/environments/{env}/secrets/{key}/versions"
    expect(document.paths[history]!.get!.description).toContain("restoredFrom")
    expect(document.paths[`${history}/{n}/restore`]!.post!.description).toContain("restoredFrom")
    await runtime.dispose()
  })

  it("documents every route of the app, and nothing that is not a route", async () => {
    for (const env of [{}, PRODUCTION]) {
      const { app, documented, runtime } = makeService(env)
      expect(await documentedRoutes(documented)).toEqual(routesOf(app))
      expect((await operationsOf(documented)).has("GET /metrics")).toBe(env === PRODUCTION)
      await expectReferencesResolve(documented)
      await runtime.dispose()
    }
  })

  it("answers every endpoint as documented", async () => {
    const secretsService = makeService()
    const { call, documented, signIn } = secretsService
    const world = await populate(secretsService)
    const { owner, writer, writeKey, secrets } = world
    await call("GET", "/api/instance")
    await call("GET", "/")
    await call("GET", "/healthz")
    await call("GET", "/readyz")
    await call("GET", "/api/auth/me", { as: owner.as })
    await call("GET", "/api/auth/me", { as: writeKey })
    await call("GET", "/api/projects", { as: owner.as })
    await call("GET", "/api/projects/alpha", { as: owner.as })
    await call("GET", "/api/projects/alpha/environments", { as: owner.as })
    await call("POST", "/api/projects/alpha/environments", { as: owner.as, body: { name: "qa" } })
    await call("DELETE", "/api/projects/alpha/environments/qa", { as: owner.as })
    await call("GET", secrets, { as: writeKey })
    await call("GET", `${secrets}/EXISTING`, { as: owner.as })
    await call("GET", `${secrets}/EXISTING/versions`, { as: owner.as })
    await call("GET", `${secrets}/EXISTING/versions/1`, { as: owner.as })
    await call("POST", `${secrets}/EXISTING/versions/1/restore`, { as: owner.as })
    await call("GET", `${secrets}/.env`, { as: owner.as })
    await call("GET", `${secrets}/json`, { as: owner.as })
    await call("DELETE", `${secrets}/EXISTING`, { as: owner.as })
    await call("GET", "/api/projects/alpha/members", { as: owner.as })
    await call("PATCH", `/api/projects/alpha/members/${writer.userId}`, { as: owner.as, body: { role: "read" } })
    await call("DELETE", `/api/projects/alpha/members/${writer.userId}`, { as: owner.as })
    await call("GET", "/api/projects/alpha/invites", { as: owner.as })
    await call("DELETE", `/api/projects/alpha/invites/${world.inviteId}`, { as: owner.as })
    const keys = await call("GET", "/api/api-keys?project=alpha", { as: owner.as })
    const created = await call("POST", "/api/api-keys", { as: owner.as, body: { name: "ci", projectSlug: "alpha" } })
    await call("POST", `/api/api-keys/${created.body.id}/rotate`, { as: owner.as, body: { expiresInDays: 30 } })
    await call("DELETE", `/api/api-keys/${created.body.id}`, { as: owner.as })
    expect(keys.body.apiKeys.length).toBeGreaterThan(0)
    await call("GET", "/api/projects/alpha/audit-log?limit=5", { as: owner.as })
    for (const decision of ["approve", "deny"]) {
      const started = await call("POST", "/api/cli-logins", { body: { name: "laptop" } })
      const { deviceCode, userCode } = started.body
      await call("GET", `/api/cli-logins/${userCode}`, { as: owner.as })
      await call("POST", "/api/cli-logins/token", { body: { deviceCode } })
      await call("POST", `/api/cli-logins/${userCode}/${decision}`, { as: owner.as, body: { projectSlug: "alpha" } })
      secretsService.clock.advance(2000)
      await call("POST", "/api/cli-logins/token", { body: { deviceCode } })
    }
    await call("DELETE", "/api/projects/alpha", { as: owner.as })
    await call("POST", "/api/auth/dev-login", { body: { email: "again@example.com" } })
    await call("POST", "/api/auth/logout", { as: (await signIn("again@example.com")).as })
    for (const path of ["/openapi.json", "/docs", "/docs/docs.js", "/docs/docs.css"]) await call("GET", path)
    for (const path of OIDC) {
      const [method, url] = path.split(" ") as [string, string]
      expect((await call(method, url)).status).toBe(404)
    }
    for (const path of [
      `${secrets}/EXISTING`,
      `${secrets}/EXISTING/versions/1`,
      `${secrets}/.env`,
      `${secrets}/json`,
    ]) {
      expect((await call("HEAD", path, { as: owner.as })).status).toBe(405)
    }
    await expectCovered(documented, [...OIDC, ...HEAD_REFUSALS])
    await secretsService.runtime.dispose()
  })
})
