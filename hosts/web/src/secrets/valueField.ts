/**
 * What every field that takes a secret value sets, so that the browser keeps the text as typed and to itself: no
 * spell checking (Chrome's enhanced spell check and Edge's Microsoft Editor send the text they check to their
 * services, and a local check underlines a value for anyone looking on), no capitalizing or correcting by a phone's
 * keyboard (the value would be stored changed), and nothing kept for autocompletion.
 */
export const VALUE_FIELD = {
  spellcheck: false,
  autoComplete: "off",
  autoCapitalize: "off",
  autoCorrect: "off",
} as const
