/**
 * What a subscription filter (`subscriptions/listen`'s `notifications`, or what a legacy server can grant of one)
 * covers: a list change it asked for, a resource update under one of its `resourceSubscriptions`, a status of one
 * of its `taskIds`. Shared by the client's legacy subscriptions and the testing kit's listen streams.
 *
 * @internal
 */

const strings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []

/** The fields of a filter, typed (`SubscriptionFilter`) or as the wire has them (a JSON object). @internal */
export interface FilterFields {
  readonly toolsListChanged?: unknown
  readonly promptsListChanged?: unknown
  readonly resourcesListChanged?: unknown
  readonly resourceSubscriptions?: unknown
  readonly taskIds?: unknown
}

/**
 * Whether `filter` covers a notification of `method` with `params`; `undefined` for a method no filter field
 * speaks of (the caller decides). @internal
 */
export const covers = (
  filter: FilterFields,
  method: string,
  params: Readonly<Record<string, unknown>> | undefined
): boolean | undefined => {
  switch (method) {
    case "notifications/tools/list_changed":
      return filter.toolsListChanged === true
    case "notifications/prompts/list_changed":
      return filter.promptsListChanged === true
    case "notifications/resources/list_changed":
      return filter.resourcesListChanged === true
    case "notifications/resources/updated": {
      const uri = params?.["uri"]
      return typeof uri === "string" && strings(filter.resourceSubscriptions).some((prefix) => uri.startsWith(prefix))
    }
    case "notifications/tasks":
      return strings(filter.taskIds).some((taskId) => taskId === params?.["taskId"])
    default:
      return undefined
  }
}
