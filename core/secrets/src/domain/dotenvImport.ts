/**
 * Reading a `.env` file of secrets, the inverse of the `.env` export (seed 001 §4 rules 1 to 3) and of `coffer
 * secrets pull --format shell`. The web app's import and the command line's `push` and `import` read it alike, so a
 * file means the same wherever it is taken in.
 *
 * The dialect is a POSIX shell's where a shell would read the line, and the `dotenv` package's where a shell would
 * refuse it or run something, since that is what such files are mostly written for:
 *
 * - `KEY=value`, with an optional `export ` in front; blank lines and lines starting with `#` are skipped;
 * - a line ends at LF, CRLF or a lone CR (a file saved on classic Mac OS), as editors and the `dotenv` package end
 *   lines; a file whose every line ends in CRLF is read with LF line ends (a value spanning lines gains no carriage
 *   return); inside quotes a lone CR is part of the value, as the export may write one there (it quotes every value
 *   holding one), and lines are numbered as an editor numbers them, each CR, CRLF or LF ending one;
 * - `'…'` is literal, line breaks included;
 * - `"…"` may span lines; a backslash escapes `\`, `"`, `$` and a backtick, joins lines before a line break, and
 *   makes `\n` and `\r` a line feed and a carriage return (the `dotenv` convention: a PEM key written on one line);
 *   before anything else it stays a backslash;
 * - quoted and bare parts side by side make one value (`'it'\''s'`, as a shell and `pull --format shell` write a
 *   quote inside single quotes);
 * - outside quotes, a backslash takes a quote, a backslash, a blank, `$`, a backtick or `#` as it is (`a\ b`); before
 *   anything else it stays (`C:\Users`), where a shell would drop it;
 * - blanks around `=` are ignored, and an unquoted value runs to the end of its line (`KEY = two words`), as the
 *   `dotenv` package reads them, where a shell would run a command;
 * - a `#` after a blank starts a comment, the blank after `=` included (`API_TOKEN= # fill me in` is empty); inside a
 *   word it is text (`KEY=#1`);
 * - `$NAME` is kept as written, never expanded: a file's values are what it says.
 *
 * The export never writes `\n` inside double quotes (it writes the line break itself, and a backslash as `\\`), so
 * everything it writes reads back exactly. Keys are given as written: whether the service takes them is its naming
 * rules' to say (`parseSecretKey`), so the reader never refuses a line for its key alone.
 */

/** One `KEY=value` of the file, with the line it starts on (1-based). */
export interface DotenvImportEntry {
  readonly key: string
  readonly value: string
  readonly line: number
}

/** A line that is not a `KEY=value`, with why; `key` when the line had one. */
export interface DotenvImportProblem {
  readonly line: number
  readonly key: string | undefined
  readonly reason: string
}

export interface DotenvImport {
  /** In the order written; a key given twice is listed twice. */
  readonly entries: ReadonlyArray<DotenvImportEntry>
  /** In the order written; the lines after a problem are still read. */
  readonly problems: ReadonlyArray<DotenvImportProblem>
}

const IN_DOUBLE_QUOTES = new Map([
  ["\\", "\\"],
  ['"', '"'],
  ["$", "$"],
  ["`", "`"],
  ["n", "\n"],
  ["r", "\r"],
])
const BARE_ESCAPABLE = new Set(["\\", '"', "'", " ", "\t", "$", "`", "#"])
const EXPORT = /^export[ \t]+/
const LINE_BREAKS = /\r\n|\r|\n/g

const isBlank = (character: string | undefined) => character === " " || character === "\t"

/**
 * `text` with LF line ends when every line ends in CRLF (saved on Windows, or checked out with `core.autocrlf`).
 * The export ends every line with a bare LF, so a file holding one keeps its carriage returns: they are in a value.
 */
const withLineFeeds = (text: string) =>
  text.includes("\n") && !/(^|[^\r])\n/.test(text) ? text.replaceAll("\r\n", "\n") : text

/** Reads `text` as a `.env` file; every line that cannot be read is named, and the rest still read. */
export const dotenvImport = (text: string): DotenvImport => {
  const source = withLineFeeds(text.replace(/^\uFEFF/, ""))
  const entries: Array<DotenvImportEntry> = []
  const problems: Array<DotenvImportProblem> = []
  /** Where the line holding `position` ends: its CR or LF, or the end of the text. */
  const lineEnd = (position: number) => {
    let end = position
    while (end < source.length && source[end] !== "\n" && source[end] !== "\r") end += 1
    return end
  }
  /** Where the line after the one ending at `end` starts: past its CR, LF or CRLF. */
  const nextLine = (end: number) => end + (source.startsWith("\r\n", end) ? 2 : 1)
  /** Whether a value ends at `position`: the end of the text or of its line. */
  const endsAt = (position: number) => {
    const character = source[position]
    return character === undefined || character === "\n" || character === "\r"
  }

  let at = 0
  let line = 1
  while (at < source.length) {
    const physical = source.slice(at, lineEnd(at))
    const start = physical.trimStart()
    if (start === "" || start.startsWith("#")) {
      at = nextLine(at + physical.length)
      line += 1
      continue
    }
    const assignment = start.replace(EXPORT, "")
    const equals = assignment.indexOf("=")
    if (equals === -1) {
      problems.push({ line, key: undefined, reason: "not a KEY=value line" })
      at = nextLine(at + physical.length)
      line += 1
      continue
    }
    const key = assignment.slice(0, equals).trim()
    let position = at + (physical.length - assignment.length) + equals + 1
    let value = ""
    let quoted = false
    // A blank met in an unquoted value: from there on the line is read as the `dotenv` package reads it.
    let spaced = false
    let problem: string | undefined
    while (!endsAt(position)) {
      const character = source[position]!
      if (isBlank(character)) {
        let next = position
        while (isBlank(source[next])) next += 1
        if (endsAt(next) || source[next] === "#") break
        if (quoted) {
          problem = "unexpected text after the closing quote"
          break
        }
        if (value !== "") {
          value += source.slice(position, next)
          spaced = true
        }
        position = next
        continue
      }
      if (character === "'" && !spaced) {
        const close = source.indexOf("'", position + 1)
        if (close === -1) {
          problem = "the single quote is never closed"
          break
        }
        value += source.slice(position + 1, close)
        position = close + 1
        quoted = true
        continue
      }
      if (character === '"' && !spaced) {
        position += 1
        while (position < source.length && source[position] !== '"') {
          const inside = source[position]!
          if (inside === "\\") {
            const next = source[position + 1] ?? ""
            const escaped = IN_DOUBLE_QUOTES.get(next)
            if (escaped !== undefined || next === "\n") {
              value += escaped ?? ""
              position += 2
              continue
            }
          }
          value += inside
          position += 1
        }
        if (position >= source.length) {
          problem = "the double quote is never closed"
          break
        }
        position += 1
        quoted = true
        continue
      }
      if (character === "\\" && BARE_ESCAPABLE.has(source[position + 1] ?? "")) {
        value += source[position + 1]
        position += 2
        continue
      }
      value += character
      position += 1
    }
    // An unclosed quote takes the rest of the text: nothing after it can be told from its value.
    const end = problem?.endsWith("never closed") ? source.length : lineEnd(position)
    if (problem === undefined) entries.push({ key, value, line })
    else problems.push({ line, key, reason: problem })
    line += (source.slice(at, end).match(LINE_BREAKS) ?? []).length + 1
    at = nextLine(end)
  }
  return { entries, problems }
}
