/**
 * Project names and the slugs derived from them (seed 001 §2: "A project's slug is derived from its name").
 *
 * The name is free text for people; the slug is what URLs use (`/api/projects/:slug`), so it is lowercase
 * ASCII letters and digits in dash-separated runs. Deriving is deterministic: the same name always gives
 * the same slug, which is how a second project with a similar name meets 409 instead of a silent suffix.
 */
import { parseLabel } from "@coffer/kernel"
import type * as Brand from "effect/Brand"
import * as Result from "effect/Result"
import { InvalidName } from "./names.js"

export type ProjectName = Brand.Branded<string, "ProjectName">
export type Slug = Brand.Branded<string, "Slug">

/** In characters (code points), after trimming; long enough for any real name, short enough for a list. */
export const PROJECT_NAME_MAX_LENGTH = 100
/** Slugs are cut to this many characters (then trailing dashes dropped), to keep URLs readable. */
export const SLUG_MAX_LENGTH = 64

/**
 * A project name: a label (`@coffer/kernel` `parseLabel`: trimmed, 1 to 100 characters, no control, format or
 * invisible characters). Answers the trimmed name; nothing else about it is changed.
 */
export const parseProjectName = (input: string): Result.Result<ProjectName, InvalidName> =>
  Result.mapBoth(parseLabel("Project name", PROJECT_NAME_MAX_LENGTH, input), {
    onFailure: (message) => new InvalidName({ field: "projectName", message }),
    onSuccess: (name) => name as ProjectName,
  })

// Latin letters that are not "letter + accent" in Unicode, so NFKD leaves them whole; spelled the way
// their languages write them in ASCII. Keys are lowercase because the table is applied after lowercasing.
const LETTERS_WITHOUT_DECOMPOSITION: Readonly<Record<string, string>> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  đ: "d",
  ð: "d",
  þ: "th",
  ł: "l",
  ħ: "h",
  ı: "i",
}
const UNDECOMPOSED = new RegExp(`[${Object.keys(LETTERS_WITHOUT_DECOMPOSITION).join("")}]`, "g")

/**
 * The slug of a project name: accents folded (NFKD, combining marks dropped, a few letters such as `ß` and
 * `ø` spelled out), lowercased, every run of anything other than `a-z0-9` made one `-`, dashes trimmed, cut
 * to 64 characters; `undefined` when no letter or digit survives. Plain (no Effect), so the web app's preview of
 * a new project's slug is this same function.
 */
export const slugOf = (name: string): string | undefined => {
  const slug = name
    // NFKD splits accents off their letters and unfolds compatibility forms, some into capitals ("🄐" is
    // "(A)"), so lowercasing comes after it.
    .normalize("NFKD")
    .toLowerCase()
    .replace(/\p{M}/gu, "")
    .replace(UNDECOMPOSED, (letter) => LETTERS_WITHOUT_DECOMPOSITION[letter] ?? letter)
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, "")
  return slug === "" ? undefined : slug
}

/** {@link slugOf} as the project's slug; a name with none is `InvalidName`. */
export const deriveSlug = (name: string): Result.Result<Slug, InvalidName> => {
  const slug = slugOf(name)
  if (slug === undefined)
    return Result.fail(
      new InvalidName({
        field: "projectName",
        message: "Project name must contain at least one letter or digit, from which its URL slug is made",
      }),
    )
  return Result.succeed(slug as Slug)
}

const SLUG_SHAPE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** Whether `text` has the shape `deriveSlug` produces; a path segment that fails it names no project. */
export const isSlug = (text: string): text is Slug => text.length <= SLUG_MAX_LENGTH && SLUG_SHAPE.test(text)
