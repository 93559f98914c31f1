/**
 * The Output tab (issue 13 §4): the resolved output, one row per line, each value marked with the schema it came
 * from (this one, or which parent), from the `provenance` of `GET …/ancestors` (`outputLines.ts`); then how a
 * service or a CI job reads it, the commands ready to copy.
 */
import { ancestorsOf } from "../../api/schemas.js"
import { CommandList } from "../../ui/commands.js"
import { Alert, CopyButton, Loading } from "../../ui/components.js"
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
    <>
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
      <ReadIt self={self} output={JSON.stringify(schema.output, null, 2)} />
    </>
  )
}

/**
 * How a service or a CI job reads this output: the address with a token, with curl and with `coffer schemas get`
 * (which also takes `latest` or a range), and the output itself to copy. The address is this page's origin: the
 * dashboard is served by the Schemas service it reads.
 */
const ReadIt = ({ self, output }: { readonly self: string; readonly output: string }) => {
  const url = `${location.origin}/api/${self}`
  const ways = [
    { label: "With curl", command: `curl -fsS -H "Authorization: Bearer $COFFER_SCHEMAS_TOKEN" ${url}` },
    { label: "With coffer", command: `COFFER_SCHEMAS_URL=${location.origin} coffer schemas get ${self}` },
  ]
  return (
    <section class="card stack" aria-labelledby="read-it-heading">
      <h2 id="read-it-heading">Read it from a service or a CI job</h2>
      <p class="hint">
        With an API token that may read every platform merged into it (<Link href="/tokens">API tokens</Link>), set as{" "}
        <code>COFFER_SCHEMAS_TOKEN</code>. The answer carries an <code>ETag</code>: a poll that sends it back in{" "}
        <code>If-None-Match</code> is answered 304 while the output is unchanged.
      </p>
      <CommandList commands={ways} />
      <div>
        <CopyButton value={output} label="Copy the output as JSON" text="Copy the output as JSON" />
      </div>
    </section>
  )
}
