/** The Secrets app's entry: the shared styles, the app's own, and the app, mounted into `#app`. */
import { render } from "preact"
import "../ui/styles.css"
import "./secrets.css"
import { App } from "./App.js"

render(<App />, document.getElementById("app")!)
