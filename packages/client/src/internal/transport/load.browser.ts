/**
 * The portable transports for a bundle (`#transports`, condition `browser`: pages, Workers): imported
 * statically, so that the bundler drops the one a page does not use and hoists the one it does (see `load.ts`).
 *
 * @internal
 */
import * as http from "./http.js"
import type * as lazy from "./load.js"
import * as stdio from "./stdio.js"

/** @internal */
export const loadStdio: typeof lazy.loadStdio = () => Promise.resolve(stdio)

/** @internal */
export const loadHttp: typeof lazy.loadHttp = () => Promise.resolve(http)
