/**
 * An audit entry's target as the log shows it. The service records it in seed 001 §2's compact forms
 * (`bob@example.com:write`, `API_URL@3`, `dotenv`), made for filtering; the page reads them out
 * ("bob@example.com, Can write", "API_URL, version 3", ".env"). A form it does not know is shown as recorded.
 * `code` says whether the text names a key or a slug, shown in the code face.
 */
import { roleLabel } from "./roles.js"

export interface AuditTarget {
  readonly text: string
  readonly code: boolean
}

const EXPORT_FORMATS: Readonly<Record<string, string>> = { dotenv: ".env", json: "JSON" }

/** `<before><separator><n>` split at the last separator, when what follows it is a whole number. */
const versioned = (target: string) => {
  const at = target.lastIndexOf("@")
  return at > 0 && /^[1-9]\d*$/.test(target.slice(at + 1))
    ? { key: target.slice(0, at), version: target.slice(at + 1) }
    : undefined
}

export const auditTarget = (action: string, target: string): AuditTarget => {
  switch (action) {
    case "member.joined":
    case "member.updated": {
      const colon = target.lastIndexOf(":")
      return colon > 0
        ? { text: `${target.slice(0, colon)}, ${roleLabel(target.slice(colon + 1))}`, code: false }
        : { text: target, code: false }
    }
    case "member.removed":
      return { text: target, code: false }
    case "invite.created":
    case "invite.deleted":
      return { text: roleLabel(target), code: false }
    case "secrets.exported":
      return { text: EXPORT_FORMATS[target] ?? target, code: false }
    case "api_key.created":
    case "api_key.rotated":
    case "api_key.deleted":
    case "environment.created":
    case "environment.deleted":
      return { text: target, code: false }
    case "secret.read":
    case "secret.restored": {
      const old = versioned(target)
      return old === undefined
        ? { text: target, code: true }
        : { text: `${old.key}, version ${old.version}`, code: true }
    }
    default:
      return { text: target, code: true }
  }
}
