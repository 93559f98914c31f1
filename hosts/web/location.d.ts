/** The folder of a built app (`secrets`, `schemas`); it holds `index.html` and `assets/` once built. */
export declare const webAppDirectory: (app: string) => string
