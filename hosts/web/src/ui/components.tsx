/**
 * The design system's small parts, shared by both apps: alerts for refusals, form fields with their labels,
 * dialogs on the native `<dialog>` (focus kept inside, Escape closes, toasts said while open read out from within),
 * a copy button, and loading states.
 */
import type { ComponentChildren, JSX, Ref } from "preact"
import { useEffect, useId, useRef, useState } from "preact/hooks"
import { ApiError, describeError, keepPageOnSessionEnd } from "../api/client.js"
import { emailParts } from "./emailParts.js"
import { useLeaveWarning } from "./leaveWarning.js"
import { currentPath } from "./router.js"
import { signInAgainHref } from "./signedInAgain.js"
import { DialogToasts, toast } from "./toast.js"
import { useAction } from "./useAction.js"

/**
 * A refusal or problem, shown where the person acted; read out at once. `id` lets a field the refusal is about name
 * it as its description (`Field`'s `errorId`).
 */
export const Alert = ({ error, id }: { readonly error: unknown; readonly id?: string }) =>
  error === undefined || error === null ? null : error instanceof ApiError && error.status === 401 ? (
    // Only seen where the page was kept for typed input (`keepPageOnSessionEnd`); elsewhere the app has gone to
    // sign in. The sign-in page opens beside this one, which keeps what was typed.
    <p class="alert" role="alert" id={id}>
      {describeError(error)} What you typed is still here: sign in again in a new tab, then come back and try again.{" "}
      <a href={signInAgainHref(currentPath())} target="_blank" rel="noopener">
        Sign in again
      </a>
    </p>
  ) : (
    <p class="alert" role="alert" id={id}>
      {describeError(error)}
    </p>
  )

type InputProps = JSX.InputHTMLAttributes<HTMLInputElement> & {
  readonly label: string
  readonly hint?: ComponentChildren
  /**
   * The id of a refusal about this field shown apart from it (an `Alert` under the form, for what only the service
   * could say): read as part of its description, after the hint, while it is there.
   */
  readonly errorId?: string | undefined
}

/**
 * A field's `autoFocus`, kept when the field appears in a page or dialog already shown (an edit form opened in
 * place): the browser honours the attribute only when a page loads or a dialog opens, so the field takes the focus
 * itself once mounted. Inside a dialog not yet open the call does nothing, and the dialog's opening focuses it.
 */
const useAutoFocus = <E extends HTMLElement>(autoFocus: unknown) => {
  const element = useRef<E>(null)
  useEffect(() => {
    if (autoFocus === true) element.current?.focus()
  }, [])
  return element
}

export const Field = ({ label, hint, errorId, ...input }: InputProps) => {
  const id = useId()
  const element = useAutoFocus<HTMLInputElement>(input.autoFocus)
  const describedBy = [hint === undefined ? undefined : `${id}-hint`, errorId].filter((part) => part !== undefined)
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        ref={element}
        aria-describedby={describedBy.length === 0 ? undefined : describedBy.join(" ")}
        {...input}
      />
      {hint === undefined ? null : (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  )
}

export const TextArea = ({
  label,
  hint,
  ...input
}: JSX.TextareaHTMLAttributes<HTMLTextAreaElement> & { readonly label: string; readonly hint?: ComponentChildren }) => {
  const id = useId()
  const element = useAutoFocus<HTMLTextAreaElement>(input.autoFocus)
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} ref={element} aria-describedby={hint === undefined ? undefined : `${id}-hint`} {...input} />
      {hint === undefined ? null : (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  )
}

export const Select = ({
  label,
  children,
  ...select
}: JSX.SelectHTMLAttributes<HTMLSelectElement> & { readonly label: string; readonly children: ComponentChildren }) => {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...select}>
        {children}
      </select>
    </div>
  )
}

/**
 * What closing a dialog would throw away (an unsaved value, a credential not yet copied): Escape or the close button
 * then asks first, since a key pressed by habit should not lose work; `discard` names the button that closes anyway.
 */
export interface CloseGuard {
  readonly message: string
  readonly discard: string
}

/**
 * A modal dialog: open while mounted; Escape or the close button calls `onClose`, after asking when a `guard` says
 * what would be lost, as closing or reloading the page does (`leaveWarning.ts`). The dialog's own buttons (Cancel,
 * Done) close it without asking: they say what they do. Closed, it gives the focus back to the control that opened
 * it (the browser does), or, where that control can no longer take it, to `returnFocus`'s element.
 */
export const Dialog = ({
  title,
  onClose,
  children,
  wide,
  guard,
  returnFocus,
}: {
  readonly title: string
  readonly onClose: () => void
  readonly children: ComponentChildren
  readonly wide?: boolean
  readonly guard?: CloseGuard | undefined
  /**
   * Where the focus goes when the dialog closes over a control that can no longer take it: one disabled by what
   * the dialog did (Create token, greyed out once the form was emptied for the next token). Otherwise the focus
   * would fall to the page's body, and `focusRescue.ts` put it at the top of the main area.
   */
  readonly returnFocus?: (() => HTMLElement | null | undefined) | undefined
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  // While asking, focus is on the question; going back returns it where it was (the field being edited).
  const [asking, setAsking] = useState<{ readonly returnTo: Element | null }>()
  const goBack = useRef<HTMLButtonElement>(null)
  const fallbackFocus = useRef(returnFocus)
  fallbackFocus.current = returnFocus
  useEffect(() => {
    const dialog = ref.current
    if (dialog !== null && !dialog.open) dialog.showModal()
    return () => {
      dialog?.close()
      // The browser gave the focus back to the opener if it could; if not, it is still in the closed dialog (about
      // to leave the page with it) or on the page's body.
      const left = document.activeElement
      if (left === null || left === document.body || dialog?.contains(left) === true) fallbackFocus.current?.()?.focus()
    }
  }, [])
  useEffect(() => {
    if (asking !== undefined) goBack.current?.focus()
  }, [asking])
  // Nothing left to lose (saved meanwhile): the question goes, and does not come back with the next edit.
  const guarded = guard !== undefined
  useEffect(() => {
    if (!guarded) setAsking(undefined)
  }, [guarded])
  // What closing would lose, a move to the sign-in page would lose too: an ended session is said here instead.
  useEffect(() => (guarded ? keepPageOnSessionEnd() : undefined), [guarded])
  // So would closing or reloading the page (Back out of the app, a stray F5): the browser asks first.
  useLeaveWarning(guarded)
  const close = () => (guard === undefined ? onClose() : setAsking({ returnTo: document.activeElement }))
  const stay = () => {
    const returnTo = asking?.returnTo
    setAsking(undefined)
    if (returnTo instanceof HTMLElement && returnTo.isConnected) returnTo.focus()
  }
  return (
    <dialog
      ref={ref}
      class={wide === true ? "dialog wide" : "dialog"}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault()
        close()
      }}
    >
      <header class="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="button ghost" aria-label="Close" onClick={close}>
          ×
        </button>
      </header>
      {asking !== undefined && guard !== undefined ? (
        <div class="alert stack dialog-guard" role="alert">
          <p>{guard.message}</p>
          <div class="row">
            <button type="button" class="button" ref={goBack} onClick={stay}>
              Go back
            </button>
            <button type="button" class="button danger" onClick={onClose}>
              {guard.discard}
            </button>
          </div>
        </div>
      ) : null}
      {children}
      {/* The toasts said while it is open: the page's own region is inert behind it, and not heard. */}
      <DialogToasts />
    </dialog>
  )
}

/**
 * A button an action runs from. While the action runs it says so (`aria-busy`, `aria-disabled`, drawn as disabled)
 * but stays enabled, and ignores presses: a disabled button drops the keyboard focus to the page's body, so a person
 * who pressed Enter would have to find their place again. `blocked` disables it for what makes the action
 * impossible (an empty name). Where that comes while the focus is on it (Older, pressed to reach the last page), it
 * stays focusable and says so the same way until the focus moves on.
 */
export const ActionButton = ({
  busy,
  blocked,
  onClick,
  onFocus,
  onBlur,
  buttonRef,
  ...button
}: Omit<JSX.ButtonHTMLAttributes<HTMLButtonElement>, "disabled" | "ref"> & {
  readonly busy: boolean
  readonly blocked?: boolean
  /** The button element, for a page that moves the focus to it. */
  readonly buttonRef?: Ref<HTMLButtonElement>
}) => {
  const [focused, setFocused] = useState(false)
  const ignoring = busy || blocked === true
  return (
    <button
      {...button}
      ref={buttonRef}
      disabled={blocked === true && !focused}
      aria-disabled={ignoring ? true : undefined}
      aria-busy={busy ? true : undefined}
      onFocus={(event) => {
        setFocused(true)
        onFocus?.call(event.currentTarget as never, event)
      }}
      onBlur={(event) => {
        setFocused(false)
        onBlur?.call(event.currentTarget as never, event)
      }}
      onClick={(event) => {
        // Also keeps a submit button from sending its form a second time.
        if (ignoring) event.preventDefault()
        else onClick?.call(event.currentTarget as never, event)
      }}
    />
  )
}

/**
 * The button under a list loaded page by page ("Older entries"), busy while a page loads, with the refusal of a
 * page that did not. Once the last page is in it stays, as "No older entries", rather than vanishing under the
 * keyboard focus, which would drop the focus to the page's body; a list that never had a second page shows none.
 */
export const LoadMore = ({
  what,
  load,
  paged,
}: {
  /** What the list holds, in the plural: "entries", "revisions". */
  readonly what: string
  /** Loads the next page, or `undefined` when there is none. */
  readonly load: (() => Promise<void>) | undefined
  /** Whether pages beyond the first are shown: the button was used, and stays where the focus may be. */
  readonly paged: boolean
}) => {
  const more = useAction(async () => load?.())
  if (load === undefined && !paged) return null
  return (
    <div class="stack">
      <Alert error={more.error} />
      <div>
        <ActionButton
          type="button"
          class="button"
          busy={more.busy}
          blocked={load === undefined}
          onClick={() => void more.run()}
        >
          {load === undefined ? `No older ${what}` : `Older ${what}`}
        </ActionButton>
      </div>
    </div>
  )
}

/** Copies `value` to the clipboard and says so. */
export const CopyButton = ({
  value,
  label,
  text = "Copy",
  onCopied,
  small = false,
  autoFocus,
}: {
  readonly value: string
  readonly label: string
  /** What the button says, where "Copy" beside the value would not say what it copies. */
  readonly text?: string
  /** Called once the clipboard holds the value. */
  readonly onCopied?: (() => void) | undefined
  /** Drawn as `button small`, beside other small buttons (a table row's). */
  readonly small?: boolean
  /** Where a dialog opening on the value puts the keyboard focus (`ShownOnce`). */
  readonly autoFocus?: boolean
}) => {
  const [error, setError] = useState<unknown>()
  return (
    <>
      <button
        type="button"
        class={small ? "button small" : "button"}
        aria-label={label}
        // biome-ignore lint/a11y/noAutofocus: set only in a modal dialog (ShownOnce), whose opening honours it.
        autoFocus={autoFocus}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value)
            setError(undefined)
            toast("Copied to the clipboard")
            onCopied?.()
          } catch {
            setError(new Error("The browser did not allow copying; select the text and copy it by hand."))
          }
        }}
      >
        {text}
      </button>
      <Alert error={error} />
    </>
  )
}

/**
 * What a page shows when it could not load: the refusal, and a way to try again without reloading the app. Try again
 * is busy while it runs: the refusal stays until an answer replaces it, so a page that drew nothing else looked as if
 * the press did nothing, and a second refusal as if it had not been tried.
 */
export const LoadFailed = ({ error, retry }: { readonly error: unknown; readonly retry: () => Promise<void> }) => {
  const again = useAction(retry)
  return (
    <div class="stack">
      <Alert error={error} />
      <div>
        <ActionButton type="button" class="button" busy={again.busy} onClick={() => void again.run()}>
          Try again
        </ActionButton>
      </div>
    </div>
  )
}

export const Loading = ({ what }: { readonly what: string }) => (
  <p class="muted" aria-busy="true">
    Loading {what}…
  </p>
)

/**
 * An e-mail address in a table: it wraps where `emailParts` says (after its `@`, a dot of the domain, a separator of
 * the name before the `@`), so that a long one neither pushes the row's actions out of view (kept whole) nor reads
 * cut in the middle of a word (wrapped anywhere). Only a part longer than its column's whole width breaks inside
 * itself (`.email-part`): a part kept whole at any cost made a table it could not fit wider than the screen. A screen
 * reader hears the address whole.
 */
export const EmailAddress = ({ address }: { readonly address: string }) => (
  <>
    {emailParts(address).map((part, index) => (
      // Where it may wrap is drawn by the stylesheet (`.email-part`), not a `<wbr>`, which is read as a space.
      <span key={index} class="email-part">
        {part}
      </span>
    ))}
  </>
)

/** `2026-11-23T02:52:31.000Z` as the reader's local date and time. */
export const formatTime = (iso: string | null | undefined) =>
  iso === null || iso === undefined ? "never" : new Date(iso).toLocaleString()

/**
 * A time in a narrow table column: `formatTime`'s words, its date and its time of day each kept whole, so that
 * where the column is short of room it wraps between the two instead of taking the room a longer value needs.
 */
export const DateTime = ({ iso }: { readonly iso: string }) => {
  const when = new Date(iso)
  return (
    <time dateTime={iso}>
      <span class="nowrap">{when.toLocaleDateString()},</span> <span class="nowrap">{when.toLocaleTimeString()}</span>
    </time>
  )
}
