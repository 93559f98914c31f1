/**
 * A secret value shown on the page (revealed in the grid or a history, or a credential shown once): its text, in the
 * mono box of `.secret-value`, named by `label`, and in no live region. An `<output>` (what it was) is one, a
 * status: a screen reader read the value aloud the moment it was revealed, to anyone in earshot. Here it is read
 * only when the person moves to it, as any text is.
 */
export const SecretValue = ({ label, value }: { readonly label: string; readonly value: string }) => (
  // A group only so that the label names it (a plain `<div>`, a `<pre>` or a `<code>` cannot be named); not a
  // `<fieldset>`, which holds form controls; and not `status`, `log` or `alert`, nor any `aria-live`.
  // biome-ignore lint/a11y/useSemanticElements: no element both takes a name and is not a live region or a form part.
  <div class="secret-value" role="group" aria-label={label}>
    {value}
  </div>
)
