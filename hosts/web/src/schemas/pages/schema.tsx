/**
 * A version's schema (issue 13 §4): the frame loads the schema once (a version with nothing saved yet reads as
 * an empty one), shows where it is and the tabs, and hands the schema to the tab of the address: Content (the
 * editor), Output (each value with its source), Inheritance (parents up to the roots, and dependents), History
 * (revisions and diffs). A missing platform or version is said so, with a way back.
 */
import { ApiError } from "../../api/client.js"
import { type EditableSchema, readSchemaToEdit, type Schema } from "../../api/schemas.js"
import { Alert, LoadFailed, Loading } from "../../ui/components.js"
import { NotFound } from "../../ui/notFound.js"
import { Link } from "../../ui/router.js"
import { useAsync } from "../../ui/useAsync.js"
import { LockedNotice } from "../lock.js"
import { home, platformPath, platformsPath, type SchemaTab, schemaPath } from "../paths.js"
import { afterSaves } from "../savesUnderWay.js"
import { useAbilities } from "../session.js"
import { ContentTab } from "../tabs/content.js"
import { HistoryTab } from "../tabs/history.js"
import { InheritanceTab } from "../tabs/inheritance.js"
import { OutputTab } from "../tabs/output.js"

const TABS: ReadonlyArray<{ readonly tab: SchemaTab; readonly label: string }> = [
  { tab: "content", label: "Content" },
  { tab: "output", label: "Output" },
  { tab: "inheritance", label: "Inheritance" },
  { tab: "history", label: "History" },
]

export interface SchemaData {
  readonly platform: string
  readonly version: string
  /** `null` while nothing has been saved for this version. */
  readonly schema: Schema | null
  /** The revision `schema` is, read with it (0 while nothing is saved): what a save edited from it names. */
  readonly revision: number
  readonly canWrite: boolean
  readonly reload: () => Promise<void>
}

/**
 * The saved schema with its revision (the dashboard's read, so that a save can name the revision its content came
 * from), or `null` when the version exists with nothing saved yet (the service's SchemaNotFound).
 */
const loadSchema = async (platform: string, version: string): Promise<EditableSchema | null> => {
  // A save of it begun on another tab of this page is read after, not before (`savesUnderWay.ts`).
  await afterSaves(`${platform}/${version}`)
  try {
    return await readSchemaToEdit(platform, version)
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && error.message.startsWith("Schema for version")) return null
    throw error
  }
}

export const SchemaPage = ({ params }: { readonly params: Readonly<Record<string, string>> }) => {
  const platform = params.platform!
  const version = params.version!
  const tab = (params.tab ?? "content") as SchemaTab
  const abilities = useAbilities()
  const loaded = useAsync(() => loadSchema(platform, version), [platform, version])
  if (!TABS.some((item) => item.tab === tab)) return <NotFound home={home} />
  const locked = abilities.lockedReason(platform)
  const head = (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <Link href={platformsPath}>Platforms</Link> / <Link href={platformPath(platform)}>{platform}</Link> /{" "}
        <span aria-current="page">{version}</span>
      </nav>
      <h1>
        {platform} <code>{version}</code>
      </h1>
    </>
  )
  // Each tab is a page of its own (its address), loaded afresh: the tabs stay drawn meanwhile, where the person
  // just clicked, rather than going while the schema loads and coming back under the pointer.
  const tabs = (
    <nav class="tabs" aria-label="Schema">
      {TABS.map((item) => {
        const href = schemaPath(platform, version, item.tab)
        return (
          <Link key={item.tab} href={href} aria-current={item.tab === tab ? "page" : undefined}>
            {item.label}
          </Link>
        )
      })}
    </nav>
  )
  if (loaded.data === undefined) {
    if (loaded.error instanceof ApiError && loaded.error.status === 404) {
      return (
        <section class="stack">
          {head}
          <Alert error={loaded.error} />
          <p>
            {/* The service names a missing platform; then its page is missing too, and the list is the way back. */}
            {loaded.error.message.startsWith("Platform ") ? (
              <Link href={platformsPath}>All platforms</Link>
            ) : (
              <Link href={platformPath(platform)}>Back to {platform}</Link>
            )}
          </p>
        </section>
      )
    }
    return (
      <section class="stack">
        {head}
        <LockedNotice reason={locked} />
        {tabs}
        {loaded.error === undefined ? (
          <Loading what="the schema" />
        ) : (
          <LoadFailed error={loaded.error} retry={loaded.reload} />
        )}
      </section>
    )
  }
  const data: SchemaData = {
    platform,
    version,
    schema: loaded.data,
    revision: loaded.data?.revision ?? 0,
    canWrite: locked === undefined,
    reload: loaded.reload,
  }
  return (
    <section class="stack">
      {head}
      <LockedNotice reason={locked} />
      {tabs}
      <Alert error={loaded.error} />
      {tab === "content" ? (
        <ContentTab {...data} />
      ) : tab === "output" ? (
        <OutputTab {...data} />
      ) : tab === "inheritance" ? (
        <InheritanceTab {...data} />
      ) : (
        <HistoryTab {...data} />
      )}
    </section>
  )
}
