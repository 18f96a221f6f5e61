/**
 * The Node wing of tool pinning: pins in a JSON file.
 *
 * @since 0.3.0
 */
import * as file from "./internal/pinning/file.js"
import type { PinStore } from "./internal/pinning/model.js"

/**
 * A store in a JSON file (created `0600`, its directory `0700`), shared by the processes that name it: each
 * write re-reads the file under a lock and replaces it atomically (temporary file, rename). A file that is
 * there but is no pin file (not JSON, another shape, larger than 16 MiB, not a regular file) is neither used
 * nor replaced: the client reports the store unavailable.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fileStore = (path: string): PinStore => file.make(path)
