/**
 * What a new API key is granted (seed 001, API keys): a project, a scope and an optional lifetime, asked the same
 * way wherever a key is made for the person: the API keys page and the approval of a command-line login.
 */
import { useState } from "preact/hooks"
import type { MemberRole, ProjectView } from "../api/secrets.js"
import { Field, Select } from "../ui/components.js"

export const MAX_DAYS = 3650

/** `""` is "never"; anything else is a whole number of days the server checks (1 to 3650). */
export const daysOf = (typed: string): number | undefined => (typed.trim() === "" ? undefined : Number(typed))

export const ExpiryField = ({
  value,
  onInput,
  hint,
  required = false,
}: {
  value: string
  onInput: (value: string) => void
  hint: string
  required?: boolean
}) => (
  <Field
    label="Expires in days"
    required={required}
    type="number"
    inputMode="numeric"
    min={1}
    max={MAX_DAYS}
    step={1}
    value={value}
    hint={hint}
    onInput={(event) => onInput(event.currentTarget.value)}
  />
)

/** The grant as the API takes it (`POST /api/api-keys` and a login's approval). */
export interface KeyGrant {
  readonly projectSlug: string
  readonly scope: MemberRole
  readonly expiresInDays?: number
}

/**
 * The project, scope and expiry fields with their state, starting on `chosen` (else the first project): the
 * chosen project, the grant they make, and the fields to render.
 */
export const useKeyGrant = (projects: ReadonlyArray<ProjectView>, chosen?: string) => {
  const [slug, setSlug] = useState(chosen ?? projects[0]?.slug ?? "")
  const [scope, setScope] = useState<MemberRole>("read")
  const [days, setDays] = useState("")
  const project = projects.find((candidate) => candidate.slug === slug)
  const mayWrite = project !== undefined && project.role !== "read"
  // A write scope chosen for one project falls back to read on a project the person can only read.
  const keyScope = mayWrite ? scope : "read"
  const expiresInDays = daysOf(days)
  const grant: KeyGrant = {
    projectSlug: slug,
    scope: keyScope,
    ...(expiresInDays === undefined ? {} : { expiresInDays }),
  }
  const fields = (
    <>
      <Select label="Project" required value={slug} onChange={(event) => setSlug(event.currentTarget.value)}>
        {projects.map((candidate) => (
          <option key={candidate.slug} value={candidate.slug}>
            {candidate.name}
          </option>
        ))}
      </Select>
      <Select label="Scope" value={keyScope} onChange={(event) => setScope(event.currentTarget.value as MemberRole)}>
        <option value="read">Read: list, read and export secrets</option>
        <option value="write" disabled={!mayWrite}>
          Write: also change secrets and environments{mayWrite ? "" : " (you can only read this project)"}
        </option>
      </Select>
      <ExpiryField value={days} onInput={setDays} hint="1 to 3650; leave empty for a key that never expires." />
    </>
  )
  // After a key is made the form starts over at the least it grants (read, no expiry chosen), on the same project:
  // a second key gets the scope and lifetime chosen for it, not the last one's unnoticed.
  const reset = () => {
    setScope("read")
    setDays("")
  }
  return { project, grant, fields, reset }
}
