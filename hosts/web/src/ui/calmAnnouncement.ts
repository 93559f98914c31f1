/**
 * What a live region says about a field checked as it is typed (the schema editor's JSON check). Rewritten on every
 * keystroke, a polite live region makes a screen reader talk over the typing, one stale message after another.
 * Instead the announcement follows the text only when its verdict changes (valid to invalid, and back), at once,
 * or once the person has paused typing for `pauseMs`: then the message as it stands is said once. The visible text
 * stays immediate; only what is announced waits.
 */
import { useEffect, useRef, useState } from "preact/hooks"

/** About as long as a typist's pause between words is short: a pause this long means they stopped to look. */
export const ANNOUNCE_PAUSE_MS = 1000

export const useCalmAnnouncement = (text: string, verdict: string, pauseMs = ANNOUNCE_PAUSE_MS): string => {
  const [said, setSaid] = useState(text)
  const saidVerdict = useRef(verdict)
  useEffect(() => {
    if (verdict !== saidVerdict.current) {
      saidVerdict.current = verdict
      setSaid(text)
      return
    }
    // Each keystroke starts the wait again; the message said is the one standing when the typing stops.
    const timer = setTimeout(() => setSaid(text), pauseMs)
    return () => clearTimeout(timer)
  }, [text, verdict, pauseMs])
  return said
}
