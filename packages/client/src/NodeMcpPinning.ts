/**
 * The Node wing of tool pinning: pins in a JSON file.
 *
 * @since 0.3.0
 */
import * as file from "./internal/node/pinFile.js"
import type { PinStore } from "./internal/pinning/model.js"

/**
 * A store in a JSON file (created `0600`, its directory `0700`), shared by the processes that name it: each
 * write re-reads the file under a lock (`<path>.lock`, waited for at most 10 s; anything but a regular file
 * there is never read) and replaces it atomically (temporary file, rename). A file that is there but is no pin
 * file (not JSON, another shape, larger than 16 MiB, not a regular file) is neither used nor replaced: the
 * client reports the store unavailable and quarantines what it cannot check. A write that would pass what the
 * file reads back (a record of 1 MiB, a scope of 8 MiB, the file of 16 MiB) is refused, the file left as it is.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fileStore = (path: string): PinStore => file.make(path)
