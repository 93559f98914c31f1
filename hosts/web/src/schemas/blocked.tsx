/**
 * A refused deletion (409, DESIGN.md "409 on blocked deletion"): the service's sentence and the schemas that
 * still extend the target, each a link to the schema, so the person can go and change it.
 */
import { blockingSchemasOf } from "../api/schemas.js"
import { Alert } from "../ui/components.js"
import { Link } from "../ui/router.js"
import { schemaPath } from "./paths.js"

export const DeletionRefusal = ({ error }: { readonly error: unknown }) => {
  const blocked = blockingSchemasOf(error)
  if (blocked === undefined || blocked.length === 0) return <Alert error={error} />
  return (
    <div class="alert" role="alert">
      <p>
        It cannot be deleted while other schemas extend it. Change or delete these first (
        {blocked.length === 1 ? "1 schema" : `${blocked.length} schemas`}):
      </p>
      <ul aria-label="Blocking schemas">
        {blocked.map((schema) => (
          <li key={`${schema.platform}/${schema.version}/${schema.extends}`}>
            <Link href={schemaPath(schema.platform, schema.version)}>
              {schema.platform}/{schema.version}
            </Link>{" "}
            <span class="muted">extends {schema.extends}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}
