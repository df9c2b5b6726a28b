/** What the fake reads of a request before its body: shared by the router, the app and the node adapter. */

export interface RequestHead {
  readonly method: string;
  /** The path as sent, without the query and never normalised. */
  readonly path: string;
  /** A header's value (repeated headers joined by ", "), or null. */
  header(name: string): string | null;
}

/** A request head read off a socket: what the router reads, and every header for the control plane's web Request. */
export interface SocketRequestHead extends RequestHead {
  headers(): Headers;
}
