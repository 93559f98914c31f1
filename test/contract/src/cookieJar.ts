/**
 * What one browser holds for one service: cookies from `Set-Cookie`, sent back as `Cookie`. A cookie cleared
 * with an empty value or `Max-Age=0` is dropped, as a browser would.
 */
export const cookieJar = () => {
  const cookies = new Map<string, string>()
  return {
    cookies,
    has: (name: string) => cookies.has(name),
    header: () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
    store: (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";")
        const at = pair.indexOf("=")
        const value = pair.slice(at + 1)
        if (value === "" || /max-age=0/i.test(line)) cookies.delete(pair.slice(0, at))
        else cookies.set(pair.slice(0, at), value)
      }
    },
  }
}

export type CookieJar = ReturnType<typeof cookieJar>
