/**
 * The identity of one schema: a platform and one of its versions. Its key, `platform/version`, names schemas in
 * cycle chains, cascade lists and error messages; it is unambiguous because platform names cannot contain `/`.
 */

/** One schema: the content saved for a version of a platform. */
export interface SchemaId {
  readonly platform: string
  readonly version: string
}

/** `platform/version`, e.g. `ios/1.2.0+build.5`. */
export const schemaKey = (id: SchemaId): string => `${id.platform}/${id.version}`
