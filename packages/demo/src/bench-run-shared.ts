/** What the runners share. */
export const echoArgs = { text: "bench" }

/** Run `total` calls with `width` in flight. */
export const pool = async (total: number, width: number, call: () => Promise<unknown>): Promise<void> => {
  let started = 0
  const lane = async () => {
    while (started < total) {
      started++
      await call()
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, total) }, lane))
}
