/**
 * The Output tab (issue 13 §4): the resolved output, one row per line, each value marked with the schema it came
 * from (this one, or which parent), from the `provenance` of `GET …/ancestors` (`outputLines.ts`).
 */
import { ancestorsOf } from "../../api/schemas.js"
import { Alert, Loading } from "../../ui/components.js"
import { Link } from "../../ui/router.js"
import { useAsync } from "../../ui/useAsync.js"
import { outputLines } from "../outputLines.js"
import type { SchemaData } from "../pages/schema.js"
import { schemaIdPath } from "../paths.js"

export const OutputTab = ({ platform, version, schema }: SchemaData) => {
  const ancestry = useAsync(() => ancestorsOf(platform, version), [platform, version])
  if (schema === null) return <p class="muted">Nothing has been saved for this version yet: there is no output.</p>
  if (ancestry.data === undefined) {
    return ancestry.error === undefined ? (
      <Loading what="where each value comes from" />
    ) : (
      <Alert error={ancestry.error} />
    )
  }
  const self = `${platform}/${version}`
  const lines = outputLines(schema.output, ancestry.data.provenance)
  return (
    <div class="table-wrap">
      <table class="output" aria-label={`Output of ${self}`}>
        <thead>
          <tr>
            <th scope="col">Value</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((line, index) => (
            <tr key={index}>
              <td class="code-line">
                {"  ".repeat(line.depth)}
                {line.text}
              </td>
              <td class="source">
                {line.source === undefined ? null : line.source === self ? (
                  <span class="badge self">this schema</span>
                ) : (
                  <Link class="badge parent" href={schemaIdPath(line.source)}>
                    {line.source}
                  </Link>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
