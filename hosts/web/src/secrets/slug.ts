/**
 * The slug a project name will get, shown before saving (issue 12 §2). The server derives it
 * (`deriveSlug` in `@coffer/secrets`); this is the same rule without the core's runtime, so the bundle stays
 * small, and `slug.test.ts` checks the two agree on arbitrary names.
 */
const SLUG_MAX_LENGTH = 64

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

/** The slug of `name`, or `undefined` when it has none (no letter or digit survives). */
export const slugOf = (name: string): string | undefined => {
  const slug = name
    .trim()
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
