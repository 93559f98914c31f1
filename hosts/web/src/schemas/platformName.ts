/**
 * Platform names in the browser: the rules for creating one (`core/schemas/src/domain/platform.ts`), checked as
 * the person types with the API's own sentence (`platformName.test.ts` checks both agree on generated names), so
 * the form says before sending what the service would answer.
 */
import { quote } from "./versions.js"

export const MAX_PLATFORM_NAME_LENGTH = 64

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
const RESERVED = ["schemas", "auth"]

/** Why the service would refuse `name`, phrased as it phrases it; `undefined` when it is acceptable. */
export const platformNameProblem = (name: string): string | undefined => {
  if (name.length === 0) return "it must not be empty"
  if (name.length > MAX_PLATFORM_NAME_LENGTH) {
    return `it is ${name.length} characters long, at most ${MAX_PLATFORM_NAME_LENGTH} are allowed`
  }
  if (!NAME.test(name)) return "only letters, digits, '.', '_' and '-' are allowed, starting with a letter or digit"
  if (RESERVED.includes(name)) return "the name is reserved"
  return undefined
}

/** The API's 400 message for `name` (`Invalid platform name "…": …`), or `undefined` when it is acceptable. */
export const platformNameError = (name: string): string | undefined => {
  const problem = platformNameProblem(name)
  return problem === undefined ? undefined : `Invalid platform name ${quote(name)}: ${problem}`
}
