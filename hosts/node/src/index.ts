/**
 * @coffer/node: the reference Node host. `serve` starts the two services from settings; `main` is the
 * `coffer` command. Embedders who want their own wiring use `appLayer` and the apps from `@coffer/http`.
 */
export { main } from "./cli.js"
export { schemasAppSettings, secretsAppSettings } from "./config/appSettings.js"
export { type HostSettings, loadSettings, SettingsRejected } from "./config/hostSettings.js"
export * as Settings from "./config/Settings.js"
export { cacheLayer, cipherLayer, databaseLayer, type Infrastructure, infrastructureLayer } from "./layers.js"
export {
  type FetchHandler,
  type Listener,
  type Listening,
  type ListenOptions,
  listen,
  listeningUrl,
  nodeListener,
} from "./listen.js"
export { malformedHeaders, malformedResponse, NOT_RECEIVED_IN_TIME, UNUSABLE_URL } from "./malformed.js"
export { type Running, SERVICES, type ServeOptions, type Service, serve } from "./serve.js"
export { version } from "./version.js"
