/**
 * Environment names and secret keys in the browser: the naming rules of `core/secrets/src/domain/names.ts`, checked
 * as the person types with the API's own sentence (`names.test.ts` checks both agree on generated names), so that a
 * form says before sending what the service would answer.
 */

export const ENVIRONMENT_NAME_MAX_LENGTH = 64
export const SECRET_KEY_MAX_LENGTH = 256

const ALPHABET = /^[A-Za-z0-9_.-]*$/
const OUTSIDE_ALPHABET = /[^A-Za-z0-9_.-]/u

const RULES = {
  environmentName: { label: "Environment name", max: ENVIRONMENT_NAME_MAX_LENGTH },
  secretKey: { label: "Secret key", max: SECRET_KEY_MAX_LENGTH },
} as const

/** Why the service would refuse `input` as a `field`, in its own words; `undefined` when it would take it. */
export const nameProblem = (field: keyof typeof RULES, input: string): string | undefined => {
  const { label, max } = RULES[field]
  if (input.length === 0) return `${label} must not be empty`
  if (!ALPHABET.test(input)) {
    const found = OUTSIDE_ALPHABET.exec(input)?.[0] ?? ""
    return `${label} may contain only letters A-Z and a-z, digits, "_", "-" and "."; found ${JSON.stringify(found)}`
  }
  if (input.length > max) return `${label} must be at most ${max} characters, got ${input.length}`
  if (input === "." || input === "..") return `${label} must not be "." or ".."`
  return undefined
}
