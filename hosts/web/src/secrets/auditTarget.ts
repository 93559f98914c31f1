/**
 * An audit entry's target as the log shows it. The service records it in seed 001 §2's compact forms
 * (`bob@example.com:write`, `API_URL@3`, `dotenv`), made for filtering; the page reads them out
 * ("bob@example.com, Can write", "API_URL, version 3", ".env"). An action the page does not know (a newer
 * service's) shows its target as recorded. `code` says whether the text names a key or a slug, shown in the code
 * face.
 */
import type { AuditAction } from "../api/secrets.js"
import { roleLabel } from "./roles.js"

export interface AuditTarget {
  readonly text: string
  readonly code: boolean
}

const EXPORT_FORMATS: Readonly<Record<string, string>> = { dotenv: ".env", json: "JSON" }

const plain = (text: string): AuditTarget => ({ text, code: false })
const named = (text: string): AuditTarget => ({ text, code: true })

/** `<email>:<role>` read out; the e-mail is split at the last `:`, which a role never holds. */
const membership = (target: string) => {
  const colon = target.lastIndexOf(":")
  return colon > 0 ? plain(`${target.slice(0, colon)}, ${roleLabel(target.slice(colon + 1))}`) : plain(target)
}

/** `<KEY>@<n>` (an old version) read out; a key never holds `@`, so any other target is the key alone. */
const secretVersion = (target: string) => {
  const at = target.lastIndexOf("@")
  return at > 0 && /^[1-9]\d*$/.test(target.slice(at + 1))
    ? named(`${target.slice(0, at)}, version ${target.slice(at + 1)}`)
    : named(target)
}

/** Each action's form (seed 001 §2 "Audit actions and their targetKey"): a new action must be given one. */
const FORMS: Readonly<Record<AuditAction, (target: string) => AuditTarget>> = {
  "project.created": named,
  "project.deleted": named,
  "environment.created": plain,
  "environment.deleted": plain,
  "secret.created": named,
  "secret.updated": named,
  "secret.read": secretVersion,
  "secret.deleted": named,
  "secret.restored": secretVersion,
  "secrets.exported": (target) => plain(EXPORT_FORMATS[target] ?? target),
  "api_key.created": plain,
  "api_key.rotated": plain,
  "api_key.deleted": plain,
  "invite.created": (target) => plain(roleLabel(target)),
  "invite.deleted": (target) => plain(roleLabel(target)),
  "member.joined": membership,
  "member.updated": membership,
  "member.removed": plain,
}

export const auditTarget = (action: string, target: string): AuditTarget =>
  Object.hasOwn(FORMS, action) ? FORMS[action as AuditAction](target) : named(target)
