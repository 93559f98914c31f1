import { chromium } from "playwright-core"
const base = "http://127.0.0.1:18888"
const login = await fetch(`${base}/api/auth/dev-login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "ada@example.com" }) })
const cookie = login.headers.getSetCookie()[0].split(";")[0]
const call = (method, path, body) => fetch(base + path, { method, headers: { cookie, "content-type": "application/json" }, body: body && JSON.stringify(body) }).then((r) => r.json())
await call("POST", "/api/projects", { name: "Payments API" })
const envs = await call("GET", "/api/projects/payments-api/environments")
for (const [k, v] of Object.entries({ DATABASE_URL: "postgres://u:p@db:5432/pay", STRIPE_KEY: "sk_live_123", REDIS_URL: "redis://cache:6379", LOG_LEVEL: "info", FEATURE_FLAGS: "a,b,c" }))
  for (const e of envs.environments) await call("POST", `/api/projects/payments-api/environments/${e.name}/secrets`, { key: k, value: e.name === "production" ? v : v + "-" + e.name })
await call("POST", `/api/projects/payments-api/environments/development/secrets`, { key: "LOG_LEVEL", value: "debug" })
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] })
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
await context.addCookies([{ name: cookie.split("=")[0], value: cookie.split("=").slice(1).join("="), url: base }])
const page = await context.newPage()
for (const [name, path] of [["projects", "/"], ["project", "/projects/payments-api"], ["audit", "/projects/payments-api/audit"]]) {
  await page.goto(base + path); await page.waitForTimeout(800)
  await page.screenshot({ path: `/tmp/look/${name}.png`, fullPage: true })
}
await browser.close()
