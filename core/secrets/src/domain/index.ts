/**
 * The pure heart of the Secrets service: naming rules, slugs, the permission matrix, the audit vocabulary
 * and the export formats. No I/O and no ports; the use cases build on these.
 */
export * from "./apiKeyId.js"
export * from "./audit.js"
export * from "./dotenv.js"
export * from "./dotenvImport.js"
export * from "./jsonImport.js"
export * from "./names.js"
export * as Order from "./order.js"
export * from "./people.js"
export * from "./permissions.js"
export * from "./slug.js"
