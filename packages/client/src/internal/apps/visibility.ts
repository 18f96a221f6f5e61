/**
 * Who may see a tool (`_meta.ui.visibility`): the model, the App, or both (the default when absent).
 *
 * @internal
 */

/** A tool's audience. @internal */
export type Visibility = "model" | "app"

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null

/**
 * The tool's declared visibility: both when absent (the spec's default). A value present but not a list hides
 * the tool from both (a server that meant to restrict it is not widened by a typo); unknown entries are ignored.
 *
 * @internal
 */
export const visibilityOf = (tool: object): ReadonlyArray<Visibility> => {
  const meta: unknown = Reflect.get(tool, "_meta")
  const ui = isObject(meta) ? meta["ui"] : undefined
  const declared = isObject(ui) ? ui["visibility"] : undefined
  if (declared === undefined) return ["model", "app"]
  if (!Array.isArray(declared)) return []
  return declared.filter((v): v is Visibility => v === "model" || v === "app")
}

/** Whether a model may be offered the tool (the spec: hosts MUST drop app-only tools from the model's list). @internal */
export const modelVisible = (tool: object): boolean => visibilityOf(tool).includes("model")

/** Whether an App may call the tool (the spec: hosts MUST reject an App's `tools/call` otherwise). @internal */
export const appVisible = (tool: object): boolean => visibilityOf(tool).includes("app")
