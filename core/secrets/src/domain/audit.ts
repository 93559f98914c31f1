/**
 * The audit log's vocabulary (seed 001 §2 "Audit actions and their targetKey"): every action name, and the
 * `targetKey` each one records.
 *
 * `AuditEvent` pairs an action with the data its target is made from, so an entry cannot be written with
 * the wrong kind of target. A target never holds a secret value.
 */
import * as Schema from "effect/Schema"
import type { MemberRole } from "./permissions.js"

export const AUDIT_ACTIONS = [
  "project.created",
  "project.deleted",
  "environment.created",
  "environment.deleted",
  "secret.created",
  "secret.updated",
  "secret.read",
  "secret.deleted",
  "secret.restored",
  "secrets.exported",
  "api_key.created",
  "api_key.rotated",
  "api_key.deleted",
  "invite.created",
  "invite.deleted",
  "member.joined",
  "member.updated",
  "member.removed",
] as const

/** An audit action name, for decoding stored rows as well as typing new ones. */
export const AuditAction = Schema.Literals(AUDIT_ACTIONS)
export type AuditAction = typeof AuditAction.Type

export const isAuditAction = (text: string): text is AuditAction =>
  (AUDIT_ACTIONS as ReadonlyArray<string>).includes(text)

/**
 * The actions whose target is a secret key (`<KEY>` or `<KEY>@<n>`), and only they: `secrets.exported` targets a
 * format, and a project, environment or API key may be named like a secret.
 */
export const SECRET_ACTIONS: ReadonlyArray<AuditAction> = AUDIT_ACTIONS.filter((action) => action.startsWith("secret."))

/** The two export formats, which are also the target of `secrets.exported`. */
export const ExportFormat = Schema.Literals(["dotenv", "json"])
export type ExportFormat = typeof ExportFormat.Type

export type AuditEvent =
  | { readonly action: "project.created" | "project.deleted"; readonly slug: string }
  | { readonly action: "environment.created" | "environment.deleted"; readonly environment: string }
  | { readonly action: "secret.created" | "secret.updated" | "secret.deleted"; readonly key: string }
  /** `version` only when an old version was read through `/versions/:n`. */
  | { readonly action: "secret.read"; readonly key: string; readonly version?: number }
  /** `version` is the version brought back, not the new one it becomes. */
  | { readonly action: "secret.restored"; readonly key: string; readonly version: number }
  | { readonly action: "secrets.exported"; readonly format: ExportFormat }
  | { readonly action: "api_key.created" | "api_key.rotated" | "api_key.deleted"; readonly name: string }
  | { readonly action: "invite.created" | "invite.deleted"; readonly role: MemberRole }
  /** `role` is the role the member has after the change. */
  | { readonly action: "member.joined" | "member.updated"; readonly email: string; readonly role: MemberRole }
  | { readonly action: "member.removed"; readonly email: string }

/**
 * `<KEY>@<n>`. Unambiguous: a secret key cannot contain `@`, so everything after the last `@` is the version.
 */
export const secretVersionTarget = (key: string, version: number): string => `${key}@${version}`

/** `<email>:<role>`. A role has no `:`, so everything after the last `:` is the role, whatever the e-mail. */
export const memberTarget = (email: string, role: MemberRole): string => `${email}:${role}`

/** The `targetKey` recorded for `event`. */
export const targetKey = (event: AuditEvent): string => {
  switch (event.action) {
    case "project.created":
    case "project.deleted":
      return event.slug
    case "environment.created":
    case "environment.deleted":
      return event.environment
    case "secret.created":
    case "secret.updated":
    case "secret.deleted":
      return event.key
    case "secret.read":
      return event.version === undefined ? event.key : secretVersionTarget(event.key, event.version)
    case "secret.restored":
      return secretVersionTarget(event.key, event.version)
    case "secrets.exported":
      return event.format
    case "api_key.created":
    case "api_key.rotated":
    case "api_key.deleted":
      return event.name
    case "invite.created":
    case "invite.deleted":
      return event.role
    case "member.joined":
    case "member.updated":
      return memberTarget(event.email, event.role)
    case "member.removed":
      return event.email
  }
}
