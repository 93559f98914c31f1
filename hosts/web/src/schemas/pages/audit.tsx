/**
 * The audit log (issue 13 §6, admins): deletions, kind changes and token creation and revocation, newest first,
 * fifty at a time with a button for older entries. The page says what it records: a log showing one entry after a
 * day of saves looks broken otherwise. Each entry's detail is read out by `../auditDetail.ts`.
 */
import { useEffect, useState } from "preact/hooks"
import { type AuditEntry, listAudit } from "../../api/schemas.js"
import { Alert, EmailAddress, formatTime, Loading, LoadMore } from "../../ui/components.js"
import { Table } from "../../ui/table.js"
import { useAsync } from "../../ui/useAsync.js"
import { auditDetail } from "../auditDetail.js"
import { useAbilities } from "../session.js"

const ACTIONS: Readonly<Record<string, string>> = {
  "platform.delete": "Deleted platform",
  "platform.kind": "Changed kind",
  "version.delete": "Deleted version",
  "token.create": "Created token",
  "token.revoke": "Revoked token",
}

/**
 * What an entry acted on, as a person knows it: a token by its name (its id, which the record keeps as the target,
 * on hover), anything else by the name the record holds.
 */
const targetOf = (entry: AuditEntry): { readonly text: string; readonly title?: string } => {
  const name = entry.detail !== undefined && "name" in entry.detail ? entry.detail.name : undefined
  return entry.action.startsWith("token.") && typeof name === "string"
    ? { text: name, title: `token id ${entry.target}` }
    : { text: entry.target }
}

export const Audit = () => {
  const abilities = useAbilities()
  const first = useAsync(async () => (abilities.manage ? listAudit() : undefined), [abilities.manage])
  const [older, setOlder] = useState<ReadonlyArray<AuditEntry>>([])
  const [next, setNext] = useState<string | null | undefined>()
  useEffect(() => {
    setOlder([])
    setNext(first.data?.next)
  }, [first.data])
  const more =
    next === null || next === undefined
      ? undefined
      : async () => {
          const page = await listAudit(next)
          setOlder((previous) => [...previous, ...page.entries])
          setNext(page.next)
        }
  if (!abilities.manage) {
    return (
      <section class="stack">
        <h1>Audit log</h1>
        <p class="alert" role="alert">
          The audit log needs the admin permission, which your groups do not give.
        </p>
      </section>
    )
  }
  const entries = first.data === undefined ? undefined : [...first.data.entries, ...older]
  return (
    <section class="stack">
      <h1>Audit log</h1>
      <p class="hint">
        Deletions, kind changes, and API tokens created or revoked, newest first. A schema's saves are in its own
        history.
      </p>
      <Alert error={first.error} />
      {entries === undefined ? (
        first.loading ? (
          <Loading what="the audit log" />
        ) : null
      ) : entries.length === 0 ? (
        <p class="muted">Nothing has been recorded yet.</p>
      ) : (
        <Table caption="Audit log, newest first" columns={["When", "Who", "What", "Target", "Detail"]} stacked>
          {entries.map((entry) => (
            <tr key={entry.id}>
              {/* Every cell may break anywhere, so the table shares its width out by unbroken length: a long
                  detail (a token's platforms) left the time, person and action a few letters wide. The time and
                  action read whole and the detail is capped; the table has nothing to focus, so it must not need
                  scrolling sideways. The person wraps only between the parts of their address, never inside
                  one of its domain's labels. */}
              <td data-label="When" class="nowrap">
                {formatTime(entry.at)}
              </td>
              <td data-label="Who">
                <EmailAddress address={entry.actor} />
              </td>
              <td data-label="What" class="nowrap">
                {ACTIONS[entry.action] ?? entry.action}
              </td>
              <td data-label="Target" title={targetOf(entry).title}>
                <code>{targetOf(entry).text}</code>
              </td>
              <td data-label="Detail">
                <span class="capped">{auditDetail(entry)}</span>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <LoadMore what="entries" load={more} paged={older.length > 0} />
    </section>
  )
}
