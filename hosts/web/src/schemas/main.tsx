/** The Schemas dashboard's entry: the shared styles, the dashboard's own, and the app, mounted into `#app`. */
import { render } from "preact"
import "../ui/styles.css"
import "./dashboard.css"
import { App } from "./App.js"

render(<App />, document.getElementById("app")!)
