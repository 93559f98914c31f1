/** The Secrets app's entry: the shared styles and the app, mounted into `#app`. */
import { render } from "preact"
import "../ui/styles.css"
import { App } from "./App.js"

render(<App />, document.getElementById("app")!)
