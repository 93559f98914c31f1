/**
 * A project's audit log (issue 12 §10, seed 001 §4 "Audit log"): newest first, a page of fifty at a time, each
 * entry with its action, target, environment, person (and the API key they acted through), address and time,
 * narrowed by the filter bar (`./auditFilters.tsx`). The page number and the filters are in the address
 * (`?key=DB_URL&page=2`), so Back returns to the view before and a filtered view can be linked. One entry more than
 * a page is asked for, to know whether an older page exists without counting the whole log.
 */
import { useEffect, useState } from "preact/hooks"
import { type AuditFilters, type AuditView, listApiKeys, listAuditLog } from "../../api/secrets.js"
import { ActionButton, Alert, DateTime, EmailAddress, Loading } from "../../ui/components.js"
import { Link, navigate, type Params, useLocation } from "../../ui/router.js"
import { useAsync } from "../../ui/useAsync.js"
import { auditTarget } from "../auditTarget.js"
import { type ProjectData, ProjectFrame } from "../projectFrame.js"
import { AuditFilterBar, actionLabel, auditPath, filterQuery, filtersOf, isKnownAction } from "./auditFilters.js"

export const AUDIT_PAGE_SIZE = 50

/** `?page=` as a page number from 1; anything else is the first page. */
const pageOf = (raw: string | null) => {
  const page = Number(raw)
  return Number.isSafeInteger(page) && page >= 1 ? page : 1
}

/** What the entry acted on, read out (`../auditTarget.ts`); the recorded form, as the service filters it, on hover. */
const TargetCell = ({ action, target }: { readonly action: string; readonly target: string }) => {
  const shown = auditTarget(action, target)
  return (
    <td data-label="Target" title={target}>
      {shown.code ? <code class="capped">{shown.text}</code> : <span class="capped">{shown.text}</span>}
    </td>
  )
}

/** Names up to this long are kept on one line, as the other short values of an entry are. */
const WHOLE_NAME = 16

/**
 * An entry's environment. An environment's name may be 64 characters: kept whole, it took the width of the
 * person beside it; a name that long wraps within a capped block instead, while `staging` or `production` reads
 * whole, as before.
 */
const EnvironmentCell = ({ name }: { readonly name: string }) =>
  name.length <= WHOLE_NAME ? (
    <td data-label="Environment" class="nowrap">
      {name}
    </td>
  ) : (
    <td data-label="Environment">
      <span class="capped">{name}</span>
    </td>
  )

/**
 * Who did it: the person's address (wrapped where an address reads well), and under it, when they acted through an
 * API key, that key's name then, a link to everything the key did: a leaked key's trail, apart from what its holder
 * did in the browser.
 */
const PersonCell = ({ entry, keyLink }: { readonly entry: AuditView; readonly keyLink: (id: string) => string }) => (
  <td data-label="Person">
    <EmailAddress address={entry.userEmail} />
    {entry.apiKey === null ? null : (
      <span class="via-key">
        via key{" "}
        <Link href={keyLink(entry.apiKey.id)} aria-label={`Entries made with API key ${entry.apiKey.name}`}>
          {entry.apiKey.name}
        </Link>
      </span>
    )}
  </td>
)

/** The filter bar, then the entries its filters select, or what is wrong with them. */
const AuditLog = ({ data }: { readonly data: ProjectData }) => {
  const { search } = useLocation()
  const filters = filtersOf(search)
  const slug = data.project.slug
  // The address holds only the key's id; its name, for the filter bar, comes from the entries it made, or, for a key
  // that made none (yet, or on this page), from the project's keys the person may see. A deleted key, or another
  // member's the person does not see, stays its id.
  const [keyNamed, setKeyNamed] = useState<{ readonly id: string; readonly name: string }>()
  useEffect(() => {
    const id = filters.apiKey
    if (id === undefined) return
    let current = true
    listApiKeys(slug).then(
      ({ apiKeys }) => {
        const key = apiKeys.find((candidate) => candidate.id === id)
        if (current && key !== undefined) setKeyNamed({ id: key.id, name: key.name })
      },
      // Only the name is missing: the filter still applies, and shows the id.
      () => undefined,
    )
    return () => {
      current = false
    }
  }, [slug, filters.apiKey])
  return (
    <>
      <p class="hint">Every read of a value, every change and every export, newest first.</p>
      <AuditFilterBar
        filters={filters}
        environments={data.environments}
        keyName={keyNamed !== undefined && keyNamed.id === filters.apiKey ? keyNamed.name : undefined}
        onApply={(next) => navigate(auditPath(slug, next))}
      />
      {filters.action === undefined || isKnownAction(filters.action) ? (
        <AuditEntries data={data} filters={filters} page={pageOf(search.get("page"))} onKeyNamed={setKeyNamed} />
      ) : (
        <p class="notice" role="status">
          The link asks for the action “{filters.action}”, which the audit log does not record.{" "}
          <button
            type="button"
            class="linklike"
            onClick={() => navigate(auditPath(slug, { ...filters, action: undefined }))}
          >
            Show every action
          </button>
        </p>
      )}
    </>
  )
}

const AuditEntries = ({
  data,
  filters,
  page,
  onKeyNamed,
}: {
  readonly data: ProjectData
  readonly filters: AuditFilters
  readonly page: number
  readonly onKeyNamed: (key: { readonly id: string; readonly name: string }) => void
}) => {
  const query = filterQuery(filters)
  const slug = data.project.slug
  // The page and filters travel with their entries: until the next ones have loaded, the table keeps saying
  // which page it shows (and is busy), rather than naming the new page over the old page's rows.
  const loaded = useAsync(
    async () => ({
      page,
      query,
      ...(await listAuditLog(slug, AUDIT_PAGE_SIZE + 1, (page - 1) * AUDIT_PAGE_SIZE, filters)),
    }),
    [slug, page, query],
  )
  const shown = loaded.data?.page ?? page
  const filtered = (loaded.data?.query ?? query) !== ""
  const busy = loaded.loading || shown !== page || (loaded.data !== undefined && loaded.data.query !== query)
  const entries = loaded.data?.auditLog.slice(0, AUDIT_PAGE_SIZE)
  const hasOlder = (loaded.data?.auditLog.length ?? 0) > AUDIT_PAGE_SIZE
  const environmentName = (id: string | null) =>
    id === null ? "—" : (data.environments.find((environment) => environment.id === id)?.name ?? "(deleted)")
  const go = (to: number) => navigate(auditPath(slug, filters, to))
  const clear = () => navigate(auditPath(slug))
  const keyLink = (id: string) => auditPath(slug, { ...filters, apiKey: id })
  const named = entries?.find((entry) => entry.apiKey !== null && entry.apiKey.id === filters.apiKey)?.apiKey
  useEffect(() => {
    if (named !== undefined && named !== null) onKeyNamed(named)
  }, [named?.id, named?.name])
  return (
    <>
      <Alert error={loaded.error} />
      {entries === undefined ? (
        loaded.loading ? (
          <Loading what="the audit log" />
        ) : null
      ) : entries.length === 0 ? (
        shown === 1 && filtered ? (
          <p class="muted">
            No entries match the filters.{" "}
            <ActionButton type="button" class="linklike" busy={busy} onClick={clear}>
              Clear the filters
            </ActionButton>
          </p>
        ) : shown === 1 ? (
          <p class="muted">Nothing has been recorded yet.</p>
        ) : (
          <p class="muted">
            No entries on this page: the log is shorter.{" "}
            <ActionButton type="button" class="linklike" busy={busy} onClick={() => go(1)}>
              Go to the newest entries
            </ActionButton>
          </p>
        )
      ) : (
        <div class="table-wrap">
          <table class="stacked" aria-busy={busy}>
            <caption class="visually-hidden">
              Audit log of {data.project.name}
              {filtered ? ", filtered" : ""}, page {shown}, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Person</th>
                <th scope="col">Environment</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            {/* Every cell may break anywhere, so the table shares its width out by each column's unbroken length:
                one 200-character key took nearly all of it, and left the time, person and address of every entry
                a few letters wide. The short values read whole and the target is capped; the e-mail may still wrap
                (where `EmailAddress` lets it), since the table must not need scrolling sideways, and so may the time,
                between its date and its time of day: at 800 px the address had 100 px beside a time kept on one
                line, and took ten lines. */}
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td data-label="When">
                    <DateTime iso={entry.createdAt} />
                  </td>
                  <td data-label="Action" class="nowrap" title={entry.action}>
                    {actionLabel(entry.action)}
                  </td>
                  <TargetCell action={entry.action} target={entry.targetKey} />
                  <PersonCell entry={entry} keyLink={keyLink} />
                  <EnvironmentCell name={environmentName(entry.environmentId)} />
                  <td data-label="Address" class="nowrap">
                    {entry.ipAddress ?? ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="row" aria-label="Audit log pages">
        <ActionButton type="button" class="button" busy={busy} blocked={page === 1} onClick={() => go(page - 1)}>
          Newer
        </ActionButton>
        <span class="muted">Page {page}</span>
        <ActionButton type="button" class="button" busy={busy} blocked={!hasOlder} onClick={() => go(page + 1)}>
          Older
        </ActionButton>
      </nav>
    </>
  )
}

export const Audit = ({ params }: { readonly params: Params }) => (
  <ProjectFrame slug={params.slug!}>{(data) => <AuditLog data={data} />}</ProjectFrame>
)
