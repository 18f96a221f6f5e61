/**
 * A fleet's HTTP client for Promise code: a Promise client whose tokens, cache, limits and tasks are the
 * fleet's, plus `resumeTask`.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as McpClient from "../../McpClient.js"
import * as McpFleet from "../../McpFleet.js"
import type { FleetClient } from "../../NodePromise.js"
import { fromLayer } from "./client.js"
import { runDetached } from "./run.js"

/** @internal */
export const connectFleet = async (
  options: McpClient.HttpClientOptions & {
    readonly toolConcurrency?: number | undefined
    readonly fleet: McpFleet.RedisOptions
  }
): Promise<FleetClient> => {
  const { toolConcurrency, ...http } = options
  let tasks: McpFleet.FleetTasks["Service"] | undefined
  const layer = Layer.orDie(McpFleet.layerHttp(http)).pipe(
    Layer.tap((services) => Effect.sync(() => void (tasks = Context.get(services, McpFleet.FleetTasks))))
  )
  const client = await fromLayer(layer, toolConcurrency === undefined ? {} : { toolConcurrency })
  return Object.assign(client, {
    resumeTask: (taskId: string) =>
      tasks === undefined
        ? Promise.reject(new McpFleet.McpFleetError({ reason: "Task", detail: "the fleet client is not started" }))
        : runDetached(tasks.resume(taskId))
  })
}
