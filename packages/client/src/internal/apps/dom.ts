/**
 * The little of the DOM the page mount uses, typed structurally (the package is compiled without the DOM
 * library, so that its portable entry stays free of browser globals).
 *
 * @internal
 */

/** @internal */
export interface MessageEventLike {
  readonly data: unknown
  readonly origin: string
  readonly source: unknown
}

/** @internal */
export type MessageListener = (event: MessageEventLike) => void

/** @internal */
export interface WindowLike {
  readonly location: { readonly origin: string; readonly href: string }
  addEventListener(type: "message", listener: MessageListener): void
  removeEventListener(type: "message", listener: MessageListener): void
}

/** @internal */
export interface FrameWindowLike {
  postMessage(message: unknown, targetOrigin: string): void
}

/** @internal */
export interface IFrameLike {
  setAttribute(name: string, value: string): void
  readonly style: { height: string; width: string; border: string }
  readonly contentWindow: FrameWindowLike | null
  src: string
  remove(): void
}

/**
 * A container element (a `<div>` of the host page). `appendChild` takes `never` so that a real element, whose
 * lib.dom `appendChild` is generic over `Node`, is a `ContainerLike` without a cast; what is appended is always the
 * iframe its own `ownerDocument` made (`appendFrame`).
 *
 * @internal
 */
export interface ContainerLike {
  appendChild(child: never): unknown
  readonly ownerDocument: {
    createElement(tag: "iframe"): IFrameLike
    readonly defaultView: WindowLike | null
  }
}

/** Appends the frame `container.ownerDocument` made to the container. @internal */
export const appendFrame = (container: ContainerLike, frame: IFrameLike): void => {
  const append = container.appendChild as (child: IFrameLike) => unknown
  append.call(container, frame)
}
