/**
 * The audit log's filter bar and its address: which action, secret key, person, environment and API key the log is
 * narrowed to. The API key has no field: it is chosen from an entry ("via key …") or a key's Activity link, and
 * shown here while it applies, with a button that lifts it. The filters live in the query string
 * (`?action=…&key=…&page=2`), so a filtered view can be linked (a secret's history links to its trail) and Back
 * undoes a change. Every field, the selects too, applies when the form is sent (Enter or Filter): a closed select
 * changes on every arrow key, and a select that applied at once reloaded the log and added a history entry for each
 * option a keyboard passed over. Any change goes back to the first page, as its pages are other ones.
 */
import { useEffect, useState } from "preact/hooks"
import { AUDIT_FILTER_NAMES, type AuditAction, type AuditFilters, type EnvironmentView } from "../../api/secrets.js"
import { projectPath } from "../projectFrame.js"

/** Seed 001 §2's actions as the page says them: every action the service records, and only those. */
export const ACTION_LABELS: Readonly<Record<AuditAction, string>> = {
  "project.created": "Created the project",
  "project.deleted": "Deleted the project",
  "environment.created": "Added environment",
  "environment.deleted": "Deleted environment",
  "secret.created": "Created secret",
  "secret.updated": "Updated secret",
  "secret.read": "Read secret",
  "secret.deleted": "Deleted secret",
  "secret.restored": "Restored secret",
  "secrets.exported": "Exported",
  "api_key.created": "Created API key",
  "api_key.rotated": "Rotated API key",
  "api_key.deleted": "Deleted API key",
  "invite.created": "Created invite",
  "invite.deleted": "Withdrew invite",
  "member.joined": "Joined",
  "member.updated": "Changed role",
  "member.removed": "Removed member",
}

/** What an action is called on the page; a name the page does not know (a newer service's) as it is. */
export const actionLabel = (action: string): string => (isKnownAction(action) ? ACTION_LABELS[action] : action)

/**
 * Whether the service records `action`: an address may carry any text (a hand-edited link), which the service
 * would refuse with its list of every action, so the page says it in its own words instead of asking.
 */
export const isKnownAction = (action: string): action is AuditAction => Object.hasOwn(ACTION_LABELS, action)

/** The filters without the empty ones, trimmed: an empty field filters nothing. */
const given = (filters: AuditFilters): AuditFilters => {
  const kept: Record<string, string> = {}
  for (const name of AUDIT_FILTER_NAMES) {
    const value = filters[name]?.trim()
    if (value !== undefined && value !== "") kept[name] = value
  }
  return kept
}

/** The filters in the address. */
export const filtersOf = (search: URLSearchParams): AuditFilters =>
  given(Object.fromEntries(AUDIT_FILTER_NAMES.map((name) => [name, search.get(name) ?? undefined])))

/** The filters as a query string, in a fixed order: equal filters give equal text (`""` for none). */
export const filterQuery = (filters: AuditFilters): string => {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(given(filters))) if (value !== undefined) query.set(name, value)
  return query.toString()
}

/** The audit tab's address for these filters and page. */
export const auditPath = (slug: string, filters: AuditFilters = {}, page = 1): string => {
  const query = new URLSearchParams(filterQuery(filters))
  if (page > 1) query.set("page", String(page))
  const text = query.toString()
  return projectPath(slug, text === "" ? "/audit" : `/audit?${text}`)
}

/**
 * The API key the log is narrowed to: its name, or its id while no entry has told the name (none on this page, or
 * a link to a key that made none).
 */
const KeyFilter = ({
  id,
  name,
  onClear,
}: {
  readonly id: string
  readonly name: string | undefined
  readonly onClear: () => void
}) => (
  <div class="field key-filter">
    <span class="label">API key</span>
    <span class="key-filter-value">
      {name === undefined ? <code>{id}</code> : <span>{name}</span>}
      <button type="button" class="button ghost small" aria-label="Clear the API key filter" onClick={onClear}>
        Clear
      </button>
    </span>
  </div>
)

export const AuditFilterBar = ({
  filters,
  environments,
  keyName,
  onApply,
}: {
  readonly filters: AuditFilters
  readonly environments: ReadonlyArray<EnvironmentView>
  /** The name of the key `filters.apiKey` names, once an entry or the project's key list has told it. */
  readonly keyName?: string | undefined
  readonly onApply: (filters: AuditFilters) => void
}) => {
  const [action, setAction] = useState(filters.action ?? "")
  const [key, setKey] = useState(filters.key ?? "")
  const [user, setUser] = useState(filters.user ?? "")
  const [environment, setEnvironment] = useState(filters.environment ?? "")
  // The address may change under the form (Back, a link): the fields follow it.
  useEffect(() => setAction(filters.action ?? ""), [filters.action])
  useEffect(() => setKey(filters.key ?? ""), [filters.key])
  useEffect(() => setUser(filters.user ?? ""), [filters.user])
  useEffect(() => setEnvironment(filters.environment ?? ""), [filters.environment])
  const apply = (change: AuditFilters) => onApply(given({ ...filters, action, key, user, environment, ...change }))
  const names = environments.map((environment) => environment.name)
  // A name in the address that is no environment (deleted since the link was made) stays selectable, so the
  // select says what was asked; the service answers that it does not exist.
  if (filters.environment !== undefined && !names.includes(filters.environment)) names.push(filters.environment)
  return (
    <form
      class="toolbar"
      aria-label="Filter the audit log"
      onSubmit={(event) => {
        event.preventDefault()
        apply({})
      }}
    >
      <div class="field">
        <label for="audit-action">Action</label>
        <select id="audit-action" value={action} onChange={(event) => setAction(event.currentTarget.value)}>
          <option value="">Any action</option>
          {Object.entries(ACTION_LABELS).map(([known, label]) => (
            <option key={known} value={known}>
              {label}
            </option>
          ))}
          {/* An unknown action in the address stays selectable, so the select says what was asked (as with an
              environment); the page says it is unknown. */}
          {filters.action === undefined || isKnownAction(filters.action) ? null : (
            <option value={filters.action}>{filters.action}</option>
          )}
        </select>
      </div>
      <div class="field grow">
        <label for="audit-key">Secret key</label>
        <input
          id="audit-key"
          type="search"
          value={key}
          placeholder="e.g. DATABASE_URL"
          autocomplete="off"
          spellcheck={false}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
      </div>
      <div class="field grow">
        <label for="audit-user">Person</label>
        <input
          id="audit-user"
          type="search"
          inputMode="email"
          value={user}
          placeholder="e-mail address"
          autocomplete="off"
          spellcheck={false}
          onInput={(event) => setUser(event.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="audit-environment">Environment</label>
        <select
          id="audit-environment"
          value={environment}
          onChange={(event) => setEnvironment(event.currentTarget.value)}
        >
          <option value="">Any environment</option>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      {filters.apiKey === undefined ? null : (
        <KeyFilter id={filters.apiKey} name={keyName} onClear={() => apply({ apiKey: undefined })} />
      )}
      <div class="row">
        <button type="submit" class="button">
          Filter
        </button>
        {filterQuery(filters) === "" ? null : (
          <button type="button" class="button ghost" onClick={() => onApply({})}>
            Clear filters
          </button>
        )}
      </div>
    </form>
  )
}
