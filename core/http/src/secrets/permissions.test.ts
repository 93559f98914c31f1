/**
 * Seed 001 §5 over HTTP, as a table: every column of the permission matrix (owner, write member, read member,
 * write key, read key), plus a write key whose holder was moved down to `read`, a signed-in person outside the
 * project and a key of another project, against every endpoint. The expected status of each cell is derived from
 * the seed's rules, written here independently of the code under test:
 *
 * - a key on a session-only endpoint (people, API keys, creating projects) is 403;
 * - a project outside the caller's reach (not a member; another project's key) is 404;
 * - otherwise the matrix decides: yes is the endpoint's success status, no is 403.
 *
 * Every cell runs on a fresh service, so destructive actions cannot leak into the next one.
 */

import { type As, makeService, populate, type Service } from "@coffer/test-kit/secretsService"
import { afterEach, describe, expect, it } from "vitest"

type World = Awaited<ReturnType<typeof populate>>

type Column =
  | "owner"
  | "writeMember"
  | "readMember"
  | "writeKey"
  | "readKey"
  | "demotedWriteKey"
  | "outsider"
  | "foreignKey"

/** Seed 001 §5, cell for cell (write key: while its holder may write). */
const MATRIX = {
  read: { owner: true, writeMember: true, readMember: true, writeKey: true, readKey: true },
  write: { owner: true, writeMember: true, readMember: false, writeKey: true, readKey: false },
  seeMembers: { owner: true, writeMember: true, readMember: true, writeKey: false, readKey: false },
  managePeople: { owner: true, writeMember: false, readMember: false, writeKey: false, readKey: false },
  deleteProject: { owner: true, writeMember: false, readMember: false, writeKey: false, readKey: false },
  createProject: { owner: true, writeMember: true, readMember: true, writeKey: false, readKey: false },
  manageApiKeys: { owner: true, writeMember: true, readMember: true, writeKey: false, readKey: false },
} as const

type Row = keyof typeof MATRIX

interface Endpoint {
  readonly name: string
  readonly row: Row
  /** Under `/api/projects/:slug`, so reach applies. */
  readonly scoped: boolean
  readonly sessionOnly: boolean
  readonly success: number
  readonly request: (world: World) => { method: string; path: string; body?: unknown }
}

const S = "/api/projects/alpha/environments/development/secrets"

const endpoints: ReadonlyArray<Endpoint> = [
  {
    name: "GET project",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: "/api/projects/alpha" }),
  },
  {
    name: "GET environments",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: "/api/projects/alpha/environments" }),
  },
  {
    name: "GET secrets",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: S }),
  },
  {
    name: "GET secret",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: `${S}/EXISTING` }),
  },
  {
    name: "GET versions",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: `${S}/EXISTING/versions` }),
  },
  {
    name: "GET version 1",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: `${S}/EXISTING/versions/1` }),
  },
  {
    name: "GET .env",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: `${S}/.env` }),
  },
  {
    name: "GET json",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: `${S}/json` }),
  },
  {
    name: "GET audit log",
    row: "read",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "GET", path: "/api/projects/alpha/audit-log" }),
  },
  {
    name: "POST new secret",
    row: "write",
    scoped: true,
    sessionOnly: false,
    success: 201,
    request: () => ({ method: "POST", path: S, body: { key: "NEW", value: "v" } }),
  },
  {
    name: "POST existing secret",
    row: "write",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "POST", path: S, body: { key: "EXISTING", value: "v" } }),
  },
  {
    name: "DELETE secret",
    row: "write",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "DELETE", path: `${S}/EXISTING` }),
  },
  {
    name: "POST restore",
    row: "write",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "POST", path: `${S}/EXISTING/versions/1/restore` }),
  },
  {
    name: "POST environment",
    row: "write",
    scoped: true,
    sessionOnly: false,
    success: 201,
    request: () => ({ method: "POST", path: "/api/projects/alpha/environments", body: { name: "qa" } }),
  },
  {
    name: "DELETE environment",
    row: "write",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "DELETE", path: "/api/projects/alpha/environments/staging" }),
  },
  {
    name: "GET members",
    row: "seeMembers",
    scoped: true,
    sessionOnly: true,
    success: 200,
    request: () => ({ method: "GET", path: "/api/projects/alpha/members" }),
  },
  {
    name: "PATCH member",
    row: "managePeople",
    scoped: true,
    sessionOnly: true,
    success: 200,
    request: (w) => ({
      method: "PATCH",
      path: `/api/projects/alpha/members/${w.bystander.userId}`,
      body: { role: "write" },
    }),
  },
  {
    name: "DELETE member",
    row: "managePeople",
    scoped: true,
    sessionOnly: true,
    success: 200,
    request: (w) => ({ method: "DELETE", path: `/api/projects/alpha/members/${w.bystander.userId}` }),
  },
  {
    name: "GET invites",
    row: "managePeople",
    scoped: true,
    sessionOnly: true,
    success: 200,
    request: () => ({ method: "GET", path: "/api/projects/alpha/invites" }),
  },
  {
    name: "POST invite",
    row: "managePeople",
    scoped: true,
    sessionOnly: true,
    success: 201,
    request: () => ({ method: "POST", path: "/api/projects/alpha/invites", body: { role: "write" } }),
  },
  {
    name: "DELETE invite",
    row: "managePeople",
    scoped: true,
    sessionOnly: true,
    success: 200,
    request: (w) => ({ method: "DELETE", path: `/api/projects/alpha/invites/${w.inviteId}` }),
  },
  {
    name: "DELETE project",
    row: "deleteProject",
    scoped: true,
    sessionOnly: false,
    success: 200,
    request: () => ({ method: "DELETE", path: "/api/projects/alpha" }),
  },
  {
    name: "POST project",
    row: "createProject",
    scoped: false,
    sessionOnly: true,
    success: 201,
    request: () => ({ method: "POST", path: "/api/projects", body: { name: "Gamma" } }),
  },
  {
    name: "GET api keys",
    row: "manageApiKeys",
    scoped: false,
    sessionOnly: true,
    success: 200,
    request: () => ({ method: "GET", path: "/api/api-keys" }),
  },
  {
    name: "POST api key",
    row: "manageApiKeys",
    scoped: true,
    sessionOnly: true,
    success: 201,
    request: () => ({ method: "POST", path: "/api/api-keys", body: { name: "n", projectSlug: "alpha" } }),
  },
]

const columns: ReadonlyArray<Column> = [
  "owner",
  "writeMember",
  "readMember",
  "writeKey",
  "readKey",
  "demotedWriteKey",
  "outsider",
  "foreignKey",
]

const isKey = (column: Column) =>
  column === "writeKey" || column === "readKey" || column === "demotedWriteKey" || column === "foreignKey"

const expectedStatus = (column: Column, endpoint: Endpoint): number => {
  if (isKey(column) && endpoint.sessionOnly) return 403
  if (endpoint.scoped && (column === "outsider" || column === "foreignKey")) return 404
  const cells = MATRIX[endpoint.row]
  const allowed =
    column === "demotedWriteKey"
      ? cells.writeKey && cells.readMember
      : column === "outsider"
        ? cells.readMember
        : column === "foreignKey"
          ? cells.writeKey
          : cells[column]
  return allowed ? endpoint.success : 403
}

const credential = (world: World, column: Column): As => {
  switch (column) {
    case "owner":
      return world.owner.as
    case "writeMember":
      return world.writer.as
    case "readMember":
      return world.reader.as
    case "writeKey":
      return world.writeKey
    case "readKey":
      return world.readKey
    case "demotedWriteKey":
      return world.demotedKey
    case "outsider":
      return world.outsider.as
    case "foreignKey":
      return world.foreignKey
  }
}

const services: Array<Service> = []
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.runtime.dispose()))
})

describe("permission matrix over HTTP (seed 001 §5)", () => {
  const cells = endpoints.flatMap((endpoint) => columns.map((column) => ({ endpoint, column })))
  it.each(
    cells.map((cell) => [cell.endpoint.name, cell.column, expectedStatus(cell.column, cell.endpoint), cell] as const),
  )("%s as %s → %i", async (_name, column, status, { endpoint }) => {
    const service = makeService()
    services.push(service)
    const world = await populate(service)
    const request = endpoint.request(world)
    const before = await service.call("GET", "/api/projects/alpha/audit-log?limit=500", { as: world.owner.as })
    const result = await service.call(request.method, request.path, {
      as: credential(world, column),
      body: request.body,
    })
    expect({ status: result.status, body: result.status >= 400 ? result.body : "ok" }).toEqual({
      status,
      body: status >= 400 ? { error: expect.any(String) } : "ok",
    })
    if (status >= 400 && request.method !== "GET") {
      // A refused write changes nothing: not even the audit log.
      const after = await service.call("GET", "/api/projects/alpha/audit-log?limit=500", { as: world.owner.as })
      expect(after.body).toEqual(before.body)
    }
  })
})
