/**
 * Numbers in query strings, in both services: every query parameter that an app's OpenAPI document describes as
 * an integer is read by the one rule of `@coffer/kernel` `parseWholeNumber` (decimal digits, no sign, fraction,
 * exponent or leading zero, within the range the document gives), and a value written otherwise answers the same
 * 400 in both: `{ "error": "<name> must be a whole number from <minimum> to <maximum>" }`. The parameters are found
 * in the documents, so one added later without a place below fails here until it is checked too.
 */

import { createPlatforms, saveSchema, useSchemasServices } from "@coffer/test-kit/schemasService"
import { makeService, type Service } from "@coffer/test-kit/secretsService"
import { afterEach, describe, expect, it } from "vitest"

const schemasService = useSchemasServices()
const secretsServices: Array<Service> = []
afterEach(async () => {
  await Promise.all(secretsServices.splice(0).map((service) => service.runtime.dispose()))
})

/** Written otherwise than the rule allows, though a lenient parser would read a number in most. */
const MISWRITTEN = ["00010", "010", "00", "-0", "+10", "1e1", "10.0", "0x10", " 10", "10 ", ""]

interface Parameter {
  readonly name: string
  readonly in: string
  readonly schema: { readonly type?: string; readonly minimum?: number; readonly maximum?: number }
}
type Document = { readonly paths: Record<string, Record<string, { readonly parameters?: ReadonlyArray<Parameter> }>> }

/** `METHOD path name` of every integer query parameter of a document, with its range. */
const integerParameters = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).flatMap(([method, operation]) =>
      (operation.parameters ?? [])
        .filter((parameter) => parameter.in === "query" && parameter.schema.type === "integer")
        .map((parameter) => ({
          operation: `${method.toUpperCase()} ${path}`,
          name: parameter.name,
          minimum: parameter.schema.minimum!,
          maximum: parameter.schema.maximum!,
        })),
    ),
  )

type Request = (method: string, path: string) => Promise<{ readonly status: number; readonly body: unknown }>

/**
 * Every integer query parameter of `document`, asked at the concrete path `at` gives for its operation. A value the
 * rule takes is answered 200, or for an operation that changes something (a deletion's check-and-set, which the
 * values below do not match) `taken`'s status: read, and refused for what it says, not as written.
 */
const expectOneRule = async (
  document: Document,
  at: Readonly<Record<string, string>>,
  request: Request,
  taken: Readonly<Record<string, number>> = {},
) => {
  const parameters = integerParameters(document)
  expect(new Set(parameters.map(({ operation }) => operation))).toEqual(new Set(Object.keys(at)))
  for (const { operation, name, minimum, maximum } of parameters) {
    const path = at[operation]
    const method = operation.split(" ")[0]!
    expect(path, `${operation} has no path to ask at here`).toBeDefined()
    expect(Number.isSafeInteger(minimum) && Number.isSafeInteger(maximum), `${operation} ${name}'s range`).toBe(true)
    for (const text of [...MISWRITTEN, String(minimum - 1), String(maximum + 1)]) {
      const { status, body } = await request(method, `${path}?${name}=${encodeURIComponent(text)}`)
      expect([name, text, { status, body }]).toEqual([
        name,
        text,
        { status: 400, body: { error: `${name} must be a whole number from ${minimum} to ${maximum}` } },
      ])
    }
    for (const text of [String(minimum), String(maximum), "10"]) {
      const { status } = await request(method, `${path}?${name}=${text}`)
      expect([name, text, status]).toEqual([name, text, taken[operation] ?? 200])
    }
  }
}

describe("numbers in query strings", () => {
  it("follow one rule on the schemas service, in the query and in the revision's path", async () => {
    const { person, documented } = schemasService()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    await saveSchema(ada, "ios/1.0.0", { a: 1 })
    const revisions = "/api/_ui/v1/platforms/ios/versions/1.0.0/revisions"
    await expectOneRule(
      (await documented.document()) as Document,
      {
        "GET /api/_ui/v1/platforms/{platform}/versions/{version}/revisions": revisions,
        "GET /api/_ui/v1/audit": "/api/_ui/v1/audit",
      },
      (method, path) => ada.request(method, path),
    )
    const message = `revision must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`
    for (const text of ["01", "0", "1e0", "1.0"]) {
      expect(await ada.request("GET", `${revisions}/${text}`)).toMatchObject({ status: 400, body: { error: message } })
    }
    expect((await ada.request("GET", `${revisions}/1`)).status).toBe(200)
  })

  it("follow the same rule on the secrets service", async () => {
    const service = makeService()
    secretsServices.push(service)
    const ada = await service.signIn("ada@example.com")
    await service.call("POST", "/api/projects", { as: ada.as, body: { name: "Alpha" } })
    const secrets = "/api/projects/alpha/environments/development/secrets"
    // At version 2, which none of the values taken names: each is read, and refused as a check-and-set.
    for (const value of ["1", "2"]) await service.call("POST", secrets, { as: ada.as, body: { key: "K", value } })
    const deletion = "DELETE /api/projects/{slug}/environments/{env}/secrets/{key}"
    await expectOneRule(
      (await service.documented.document()) as Document,
      { "GET /api/projects/{slug}/audit-log": "/api/projects/alpha/audit-log", [deletion]: `${secrets}/K` },
      (method, path) => service.call(method, path, { as: ada.as }),
      { [deletion]: 409 },
    )
  })
})

/** `METHOD path` of every operation of a document with query parameters, with their names. */
const queryParameters = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).flatMap(([method, operation]) => {
      const names = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name)
      return names.length === 0 ? [] : [{ operation: `${method.toUpperCase()} ${path}`, names }]
    }),
  )

/**
 * Every query parameter of `document`, given twice at the path `at` gives for its operation: 400 naming it, as the
 * route would otherwise read one copy (the first) and its reader might believe the other.
 */
const expectGivenOnce = async (document: Document, at: Readonly<Record<string, string>>, request: Request) => {
  const operations = queryParameters(document)
  expect(new Set(operations.map(({ operation }) => operation))).toEqual(new Set(Object.keys(at)))
  for (const { operation, names } of operations) {
    for (const name of names) {
      for (const values of [
        ["1", "1"],
        ["2", "1"],
      ]) {
        const query = values.map((value) => `${encodeURIComponent(name)}=${value}`).join("&")
        const { status, body } = await request(operation.split(" ")[0]!, `${at[operation]}?${query}`)
        expect([operation, name, { status, body }]).toEqual([
          operation,
          name,
          { status: 400, body: { error: `Query parameter "${name}" is given more than once` } },
        ])
      }
    }
  }
}

describe("a query parameter given twice", () => {
  it("is refused on the schemas service, before anything is read", async () => {
    const { person, documented } = schemasService()
    const ada = await person("ada@example.com")
    await createPlatforms(ada, { ios: ["1.0.0"] })
    await expectGivenOnce(
      (await documented.document()) as Document,
      {
        "GET /api/_ui/v1/platforms/{platform}/versions/{version}/revisions":
          "/api/_ui/v1/platforms/ios/versions/1.0.0/revisions",
        "GET /api/_ui/v1/audit": "/api/_ui/v1/audit",
        // Before sign-in being off (these services have no identity provider) is said.
        "GET /api/auth/oidc/start": "/api/auth/oidc/start",
      },
      (method, path) => ada.request(method, path),
    )
  })

  it("is refused on the secrets service, and a deletion's check-and-set deletes nothing", async () => {
    const service = makeService()
    secretsServices.push(service)
    const ada = await service.signIn("ada@example.com")
    await service.call("POST", "/api/projects", { as: ada.as, body: { name: "Alpha" } })
    const secrets = "/api/projects/alpha/environments/development/secrets"
    await service.call("POST", secrets, { as: ada.as, body: { key: "K", value: "1" } })
    await expectGivenOnce(
      (await service.documented.document()) as Document,
      {
        "GET /api/projects/{slug}/audit-log": "/api/projects/alpha/audit-log",
        "DELETE /api/projects/{slug}/environments/{env}/secrets/{key}": `${secrets}/K`,
        "GET /api/api-keys": "/api/api-keys",
        "GET /api/auth/oidc/start": "/api/auth/oidc/start",
      },
      (method, path) => service.call(method, path, { as: ada.as }),
    )
    expect((await service.call("GET", `${secrets}/K`, { as: ada.as })).status).toBe(200)
  })
})
