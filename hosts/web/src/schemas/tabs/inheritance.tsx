/**
 * The Inheritance tab (issue 13 §4): the chain of parents up to the roots (each schema with what its references
 * selected; a version whose schema was never saved, which merges in as `{}`, marked), and every schema that
 * extends this one, directly or not: what a save here re-processes.
 */
import { ancestorsOf, dependentsOf } from "../../api/schemas.js"
import { Alert, Loading } from "../../ui/components.js"
import { Link } from "../../ui/router.js"
import { useAsync } from "../../ui/useAsync.js"
import type { SchemaData } from "../pages/schema.js"
import { schemaIdPath, schemaPath } from "../paths.js"

export const InheritanceTab = ({ platform, version }: SchemaData) => {
  const ancestry = useAsync(() => ancestorsOf(platform, version), [platform, version])
  const dependents = useAsync(() => dependentsOf(platform, version), [platform, version])
  const nodes = ancestry.data?.ancestors
  // The dependents are drawn once the parents above them are: answering first, their links were drawn and then
  // moved down under the pointer as the chain of parents came in above them.
  const parentsShown = nodes !== undefined || ancestry.error !== undefined
  const shownDependents = parentsShown ? dependents.data : undefined
  const dependentsError = parentsShown ? dependents.error : undefined
  const roots = nodes?.filter((node) => node.parents.length === 0).map((node) => `${node.platform}/${node.version}`)
  return (
    <div class="stack">
      <section class="card stack" aria-labelledby="parents-heading">
        <h2 id="parents-heading">Parents</h2>
        <Alert error={ancestry.error} />
        {nodes === undefined ? (
          ancestry.error === undefined ? (
            <Loading what="the parents" />
          ) : null
        ) : nodes.length <= 1 && nodes[0]?.parents.length === 0 ? (
          <p class="muted">This schema extends nothing: it is a root.</p>
        ) : (
          <>
            <ol class="chain" aria-label="Inheritance chain">
              {nodes.map((node) => (
                <li key={`${node.platform}/${node.version}`}>
                  {/* The chain starts at the schema on screen: named, not linked to the page it is on. */}
                  {node.platform === platform && node.version === version ? (
                    <>
                      <strong aria-current="page">
                        {node.platform}/{node.version}
                      </strong>{" "}
                      <span class="badge">this schema</span>
                    </>
                  ) : (
                    <Link href={schemaPath(node.platform, node.version)}>
                      {node.platform}/{node.version}
                    </Link>
                  )}
                  {node.saved ? null : (
                    <span class="badge missing" title="It merges in as an empty object until its schema is saved">
                      no schema saved
                    </span>
                  )}
                  {node.parents.length === 0 ? (
                    <span class="badge">root</span>
                  ) : (
                    <ul>
                      {node.parents.map((parent) => (
                        <li key={parent.reference}>
                          extends <code>{parent.reference}</code> →{" "}
                          <Link href={schemaPath(parent.platform, parent.version)}>
                            {parent.platform}/{parent.version}
                          </Link>
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              ))}
            </ol>
            {roots === undefined || roots.length === 0 ? null : (
              <p class="hint">
                {roots.length === 1 ? "Root" : "Roots"}: {roots.join(", ")}
              </p>
            )}
          </>
        )}
      </section>
      <section class="card stack" aria-labelledby="dependents-heading">
        <h2 id="dependents-heading">Dependents</h2>
        <Alert error={dependentsError} />
        {shownDependents === undefined ? (
          dependentsError === undefined ? (
            <Loading what="the dependents" />
          ) : null
        ) : shownDependents.dependents.length === 0 ? (
          <p class="muted">No schema extends this one: a save here re-processes nothing else.</p>
        ) : (
          <>
            <p>
              {shownDependents.dependents.length === 1
                ? "A save here re-processes this schema:"
                : `A save here re-processes these ${shownDependents.dependents.length} schemas, in this order:`}
            </p>
            <ol aria-label="Dependents">
              {shownDependents.dependents.map((dependent) => (
                <li key={`${dependent.platform}/${dependent.version}`}>
                  <Link href={schemaPath(dependent.platform, dependent.version)}>
                    {dependent.platform}/{dependent.version}
                  </Link>{" "}
                  <span class="muted">
                    extends{" "}
                    {dependent.extends.map((id, index) => (
                      <span key={id}>
                        {index === 0 ? "" : ", "}
                        <Link href={schemaIdPath(id)}>{id}</Link>
                      </span>
                    ))}
                  </span>
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
    </div>
  )
}
