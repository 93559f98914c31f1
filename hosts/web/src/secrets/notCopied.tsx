/** The keys a bulk copy (`copyAcross.ts`) could not copy, each with the service's reason. */
import { describeError } from "../api/client.js"
import type { CopyOutcome } from "./copyAcross.js"

export const NotCopied = ({ failed }: { readonly failed: CopyOutcome["failed"] }) =>
  failed.length === 0 ? null : (
    <div class="alert" role="alert">
      <p>Not copied:</p>
      <ul>
        {failed.map(({ key, error }) => (
          <li key={key}>
            <code>{key}</code>: {describeError(error)}
          </li>
        ))}
      </ul>
    </div>
  )
