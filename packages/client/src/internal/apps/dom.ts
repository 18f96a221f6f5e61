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

/** A container element (a `<div>` of the host page). @internal */
export interface ContainerLike {
  appendChild(child: IFrameLike): unknown
  readonly ownerDocument: {
    createElement(tag: "iframe"): IFrameLike
    readonly defaultView: WindowLike | null
  }
}
