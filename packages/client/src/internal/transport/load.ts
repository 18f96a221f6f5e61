/**
 * How the portable transports are loaded: when a layer is built, as a chunk of their own (`import()`), so that
 * a Node program loads only the one it uses (the stdio one loads `effect/process`, the HTTP one `effect/http`
 * and `effect/encoding`'s SSE parser). A bundle for a page or a Worker takes `load.browser.ts` instead
 * (`#transports`, condition `browser`): there static imports let the bundler drop the transport a page does not
 * use and keep the one it does in the page's own chunk, where webpack and rspack can hoist the Effect modules
 * it shares (a module split across chunks is left un-hoisted).
 *
 * @internal
 */

let stdioModule: Promise<typeof import("./stdio.js")> | undefined
let httpModule: Promise<typeof import("./http.js")> | undefined

/** @internal */
export const loadStdio = (): Promise<typeof import("./stdio.js")> => (stdioModule ??= import("./stdio.js"))

/** @internal */
export const loadHttp = (): Promise<typeof import("./http.js")> => (httpModule ??= import("./http.js"))
